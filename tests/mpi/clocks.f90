! The program's own clocks under VACED, Fortran: a ping-pong and a
! computation timed with system_clock and with MPI_Wtime.  Rank 0 prints
!   clocks pp_wtime=S pp_sysclock=S comp_wtime=S comp_sysclock=S
program clocks
  use mpi
  implicit none
  integer :: rank, ierr, i, iters
  integer(8) :: c0, c1, rate
  character :: byte
  double precision :: w0, pp_w, pp_c, c_w, c_c, x
  integer :: status(MPI_STATUS_SIZE)

  iters = 200
  byte = 'x'
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)

  w0 = MPI_Wtime()
  call system_clock(c0, rate)
  do i = 1, iters
     if (rank == 0) then
        call MPI_Send(byte, 1, MPI_CHARACTER, 1, 0, MPI_COMM_WORLD, ierr)
        call MPI_Recv(byte, 1, MPI_CHARACTER, 1, 0, MPI_COMM_WORLD, status, ierr)
     else if (rank == 1) then
        call MPI_Recv(byte, 1, MPI_CHARACTER, 0, 0, MPI_COMM_WORLD, status, ierr)
        call MPI_Send(byte, 1, MPI_CHARACTER, 0, 0, MPI_COMM_WORLD, ierr)
     end if
  end do
  call system_clock(c1)
  pp_w = MPI_Wtime() - w0
  pp_c = dble(c1 - c0) / dble(rate)

  w0 = MPI_Wtime()
  call system_clock(c0)
  x = 1d0
  do i = 1, 20000000
     x = x * 1.0000001d0 + 1d-9
  end do
  call system_clock(c1)
  c_w = MPI_Wtime() - w0
  c_c = dble(c1 - c0) / dble(rate)

  if (rank == 0) write (*, '(a,f0.9,a,f0.9,a,f0.9,a,f0.9,a,g0)') &
       'clocks pp_wtime=', pp_w, ' pp_sysclock=', pp_c, ' comp_wtime=', c_w, &
       ' comp_sysclock=', c_c, ' sink=', x
  call MPI_Finalize(ierr)
end program clocks
