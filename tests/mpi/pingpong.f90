! Blocking ping-pong in Fortran 90 between ranks 0 and 1.
! Usage: pingpong_f90 BYTES ITERATIONS ; prints the mean round trip
! (MPI_Wtime, target time under VACED).
program pingpong_f90
  use mpi
  implicit none
  integer :: ierr, rank, i, n, iters, st(MPI_STATUS_SIZE)
  character(len=32) :: arg
  character, allocatable :: buf(:)
  double precision :: t0, t1

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call get_command_argument(1, arg)
  read (arg, *) n
  call get_command_argument(2, arg)
  read (arg, *) iters
  allocate (buf(max(n, 1)))
  buf = 'x'
  do i = 0, iters   ! i = 0 warms up: connection, first touch
    if (i == 1) t0 = MPI_Wtime()
    if (rank == 0) then
      call MPI_Send(buf, n, MPI_CHARACTER, 1, 5, MPI_COMM_WORLD, ierr)
      call MPI_Recv(buf, n, MPI_CHARACTER, 1, 5, MPI_COMM_WORLD, st, ierr)
    else if (rank == 1) then
      call MPI_Recv(buf, n, MPI_CHARACTER, 0, 5, MPI_COMM_WORLD, st, ierr)
      call MPI_Send(buf, n, MPI_CHARACTER, 0, 5, MPI_COMM_WORLD, ierr)
    end if
  end do
  t1 = MPI_Wtime()
  if (rank == 0) write (*, '(A,I0,A,I0,A,ES20.12)') 'pingpong bytes=', n, ' iters=', iters, &
       ' roundtrip_s=', (t1 - t0) / iters
  deallocate (buf)
  call MPI_Finalize(ierr)
end program pingpong_f90
