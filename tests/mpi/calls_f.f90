! Known call sites of a Fortran program for the per-call tables
! (tests/mpi/test_calls.py): the Fortran bindings are MPICH's own code,
! so VACED finds the program's caller by a stack walk.  Rank 0 sends one
! message to rank 1 (SITE:send, SITE:recv); every rank joins REPS
! allreduces (SITE:allreduce).
program calls_f
  use mpi
  implicit none
  integer :: rank, size, ierr, i, status(MPI_STATUS_SIZE)
  integer, parameter :: reps = 10
  double precision :: v, total, buf(128)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  buf = 1.0d0
  if (rank == 0) then
     call MPI_Send(buf, 128, MPI_DOUBLE_PRECISION, 1, 0, MPI_COMM_WORLD, ierr) ! SITE:send
  else if (rank == 1) then
     call MPI_Recv(buf, 128, MPI_DOUBLE_PRECISION, 0, 0, MPI_COMM_WORLD, status, ierr) ! SITE:recv
  end if
  v = rank
  do i = 1, reps
     call MPI_Allreduce(v, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr) ! SITE:allreduce
  end do
  if (rank == 0) print '(a,f8.1)', 'calls_f: sum ', total
  call MPI_Finalize(ierr)
end program calls_f
