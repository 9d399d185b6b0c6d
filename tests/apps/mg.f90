! MG: V-cycle multigrid for a 3D Poisson problem on a periodic grid, written
! from the published description of NPB MG (Bailey et al., "The NAS Parallel
! Benchmarks"; NPB 2 report).
!
! Problem: laplacian(u) = v on an n x n x n periodic grid (n = 2^lt), v = 0
! except +1 at the 10 points with the largest and -1 at the 10 points with
! the smallest of n^3 pseudo-random numbers (NPB generator, a = 5^13, x_0 =
! 314159265, x fastest).  Starting from u = 0, each iteration applies one
! V-cycle to the residual and recomputes it:  u = u + M r,  r = v - A u.
! The operators are NPB's 27-point stencils, coefficients by the number of
! non-zero offsets (0, 1, 2, 3):
!   A (residual)      -8/3, 0, 1/6, 1/12
!   P (restriction)    1/2, 1/4, 1/8, 1/16    coarse point J <- fine point 2J
!   Q (interpolation)  trilinear (1, 1/2, 1/4, 1/8)
!   S (smoother)      -3/8, 1/32, -1/64, 0    (class A: -3/17, 1/33, -1/61, 0)
! V-cycle: restrict r down to the 2^3 grid, smooth there, then on the way up
! interpolate, take the residual, smooth.
!
! Decomposition: p = 2^k ranks on a 3D periodic Cartesian grid
! (MPI_Dims_create, MPI_Cart_create); every level of the hierarchy is split
! the same way while each rank still holds at least one point per dimension.
! After every operator the ghost layers are refreshed by a halo exchange with
! the 6 face neighbours (MPI_Sendrecv, one axis after the other so that
! edges and corners are carried along).  Below the last level that can be
! split, the residual of that level is gathered on every rank
! (MPI_Allgather) and the coarser levels are done redundantly by all ranks.
! The final residual norm is reduced with MPI_Allreduce.
!
! Usage: mg [S|W|A]     ranks: a power of two, at most n per grid dimension
! Verification: every grid value is computed from the same operands in the
! same order whatever the decomposition.  For class S rank 0 repeats the run
! serially and the residual norm and an exact checksum of the bits of u and
! r must agree; for all classes the residual norm must match a stored value
! (this program on 1 rank) within 1e-10 relative and must have decreased in
! every iteration.
module mgmod
  use mpi
  use, intrinsic :: iso_fortran_env, only: int64
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer(int64), parameter :: mask23 = 8388607_int64, mask46 = 70368744177663_int64
  integer(int64), parameter :: a_lcg = 1220703125_int64, seed = 314159265_int64

  type level_t
    integer :: n, m(3), s(3)      ! global size; local sizes; global offsets (0-based)
    logical :: dist               ! split over the ranks, or replicated (whole grid)
    real(dp), allocatable :: u(:,:,:), r(:,:,:)
  end type level_t

  type grid_t
    integer :: comm, rank, size, dims(3), coords(3), nb_lo(3), nb_hi(3)
    integer :: lt, lb, kd         ! top, bottom, lowest split level
    type(level_t), allocatable :: lev(:)
    real(dp), allocatable :: v(:,:,:)
    real(dp), allocatable :: sbuf(:), rbuf(:), gbuf(:), line1(:), line2(:), au(:)
    real(dp) :: a(0:3), c(0:3)
  end type grid_t

contains

  function mulmod46(a, x) result(r)
    integer(int64), intent(in) :: a, x
    integer(int64) :: r, a1, a2, x1, x2, t
    a1 = shiftr(a, 23)
    a2 = iand(a, mask23)
    x1 = shiftr(x, 23)
    x2 = iand(x, mask23)
    t = iand(a1 * x2 + a2 * x1, mask23)
    r = iand(shiftl(t, 23) + a2 * x2, mask46)
  end function mulmod46

  function powmod46(a, e) result(r)
    integer(int64), intent(in) :: a, e
    integer(int64) :: r, b, k
    r = 1
    b = a
    k = e
    do while (k > 0)
      if (iand(k, 1_int64) == 1) r = mulmod46(r, b)
      b = mulmod46(b, b)
      k = shiftr(k, 1)
    end do
  end function powmod46

  subroutine grid_setup(g, comm, lt, classname)
    type(grid_t), intent(inout) :: g
    integer, intent(in) :: comm, lt
    character, intent(in) :: classname
    integer :: ierr, k, d, mx
    logical :: periods(3)
    g%dims = 0
    call MPI_Comm_size(comm, g%size, ierr)
    call MPI_Dims_create(g%size, 3, g%dims, ierr)
    periods = .true.
    call MPI_Cart_create(comm, 3, g%dims, periods, .false., g%comm, ierr)
    call MPI_Comm_rank(g%comm, g%rank, ierr)
    call MPI_Cart_coords(g%comm, g%rank, 3, g%coords, ierr)
    do d = 1, 3
      call MPI_Cart_shift(g%comm, d - 1, 1, g%nb_lo(d), g%nb_hi(d), ierr)
    end do
    g%lt = lt
    g%lb = 1
    allocate (g%lev(g%lb:g%lt))
    g%kd = g%lt
    do k = g%lt, g%lb, -1
      g%lev(k)%n = 2**k
      g%lev(k)%dist = all(g%dims <= 2**k)
      if (g%lev(k)%dist) then
        g%kd = k
        g%lev(k)%m = 2**k / g%dims
        g%lev(k)%s = g%coords * g%lev(k)%m
      else
        g%lev(k)%m = 2**k
        g%lev(k)%s = 0
      end if
      associate (m => g%lev(k)%m)
        allocate (g%lev(k)%u(0:m(1)+1, 0:m(2)+1, 0:m(3)+1))
        allocate (g%lev(k)%r(0:m(1)+1, 0:m(2)+1, 0:m(3)+1))
      end associate
      g%lev(k)%u = 0
      g%lev(k)%r = 0
    end do
    associate (m => g%lev(g%lt)%m)
      allocate (g%v(0:m(1)+1, 0:m(2)+1, 0:m(3)+1))
      mx = maxval(m) + 2
    end associate
    allocate (g%sbuf(mx * mx), g%rbuf(mx * mx))
    allocate (g%line1(0:max(mx, 2**g%lt + 2)), g%line2(0:max(mx, 2**g%lt + 2)))
    allocate (g%au(max(mx, 2**g%lt + 2)))
    g%a = [-8.0_dp / 3.0_dp, 0.0_dp, 1.0_dp / 6.0_dp, 1.0_dp / 12.0_dp]
    if (classname == 'A') then
      g%c = [-3.0_dp / 17.0_dp, 1.0_dp / 33.0_dp, -1.0_dp / 61.0_dp, 0.0_dp]
    else
      g%c = [-3.0_dp / 8.0_dp, 1.0_dp / 32.0_dp, -1.0_dp / 64.0_dp, 0.0_dp]
    end if
  end subroutine grid_setup

  subroutine grid_free(g)
    type(grid_t), intent(inout) :: g
    integer :: ierr
    deallocate (g%lev, g%v, g%sbuf, g%rbuf, g%line1, g%line2, g%au)
    if (allocated(g%gbuf)) deallocate (g%gbuf)
    call MPI_Comm_free(g%comm, ierr)
  end subroutine grid_free

  ! Ghost layers of level k's array x: periodic copies, or the face exchange.
  subroutine comm3(g, k, x)
    type(grid_t), intent(inout) :: g
    integer, intent(in) :: k
    real(dp), intent(inout) :: x(0:, 0:, 0:)
    integer :: m1, m2, m3, ax
    m1 = g%lev(k)%m(1)
    m2 = g%lev(k)%m(2)
    m3 = g%lev(k)%m(3)
    do ax = 1, 3
      if (.not. g%lev(k)%dist .or. g%dims(ax) == 1) then
        select case (ax)
        case (1)
          x(0, 1:m2, 1:m3) = x(m1, 1:m2, 1:m3)
          x(m1+1, 1:m2, 1:m3) = x(1, 1:m2, 1:m3)
        case (2)
          x(0:m1+1, 0, 1:m3) = x(0:m1+1, m2, 1:m3)
          x(0:m1+1, m2+1, 1:m3) = x(0:m1+1, 1, 1:m3)
        case (3)
          x(0:m1+1, 0:m2+1, 0) = x(0:m1+1, 0:m2+1, m3)
          x(0:m1+1, 0:m2+1, m3+1) = x(0:m1+1, 0:m2+1, 1)
        end select
      else
        call exchange_axis(g, ax, x, m1, m2, m3)
      end if
    end do
  end subroutine comm3

  subroutine exchange_axis(g, ax, x, m1, m2, m3)
    type(grid_t), intent(inout) :: g
    integer, intent(in) :: ax, m1, m2, m3
    real(dp), intent(inout) :: x(0:, 0:, 0:)
    integer :: cnt, ierr, side, src, dst, face, ghost, i1, i2, i3, q
    integer :: st(MPI_STATUS_SIZE)
    do side = 0, 1
      ! side 0: my low face goes down, my high ghost comes from above; side 1: reverse
      if (side == 0) then
        dst = g%nb_lo(ax)
        src = g%nb_hi(ax)
      else
        dst = g%nb_hi(ax)
        src = g%nb_lo(ax)
      end if
      q = 0
      select case (ax)
      case (1)
        face = merge(1, m1, side == 0)
        do i3 = 1, m3
          do i2 = 1, m2
            q = q + 1
            g%sbuf(q) = x(face, i2, i3)
          end do
        end do
      case (2)
        face = merge(1, m2, side == 0)
        do i3 = 1, m3
          do i1 = 0, m1 + 1
            q = q + 1
            g%sbuf(q) = x(i1, face, i3)
          end do
        end do
      case (3)
        face = merge(1, m3, side == 0)
        do i2 = 0, m2 + 1
          do i1 = 0, m1 + 1
            q = q + 1
            g%sbuf(q) = x(i1, i2, face)
          end do
        end do
      end select
      cnt = q
      call MPI_Sendrecv(g%sbuf, cnt, MPI_DOUBLE_PRECISION, dst, 10 + side, &
                        g%rbuf, cnt, MPI_DOUBLE_PRECISION, src, 10 + side, g%comm, st, ierr)
      q = 0
      select case (ax)
      case (1)
        ghost = merge(m1 + 1, 0, side == 0)
        do i3 = 1, m3
          do i2 = 1, m2
            q = q + 1
            x(ghost, i2, i3) = g%rbuf(q)
          end do
        end do
      case (2)
        ghost = merge(m2 + 1, 0, side == 0)
        do i3 = 1, m3
          do i1 = 0, m1 + 1
            q = q + 1
            x(i1, ghost, i3) = g%rbuf(q)
          end do
        end do
      case (3)
        ghost = merge(m3 + 1, 0, side == 0)
        do i2 = 0, m2 + 1
          do i1 = 0, m1 + 1
            q = q + 1
            x(i1, i2, ghost) = g%rbuf(q)
          end do
        end do
      end select
    end do
  end subroutine exchange_axis

  ! w(1:m1) = 27-point stencil with coefficients cf applied to x along line (i2, i3)
  subroutine stencil_line(g, x, cf, m1, i2, i3)
    type(grid_t), intent(inout) :: g
    real(dp), intent(in) :: x(0:, 0:, 0:), cf(0:3)
    integer, intent(in) :: m1, i2, i3
    integer :: i1
    do i1 = 0, m1 + 1
      g%line1(i1) = x(i1, i2-1, i3) + x(i1, i2+1, i3) + x(i1, i2, i3-1) + x(i1, i2, i3+1)
      g%line2(i1) = x(i1, i2-1, i3-1) + x(i1, i2+1, i3-1) + x(i1, i2-1, i3+1) + x(i1, i2+1, i3+1)
    end do
    do i1 = 1, m1
      g%au(i1) = cf(0) * x(i1, i2, i3) &
                 + cf(1) * (x(i1-1, i2, i3) + x(i1+1, i2, i3) + g%line1(i1)) &
                 + cf(2) * (g%line2(i1) + g%line1(i1-1) + g%line1(i1+1)) &
                 + cf(3) * (g%line2(i1-1) + g%line2(i1+1))
    end do
  end subroutine stencil_line

  ! r = v - A u  (or r = r - A u without v), then the ghosts of r
  subroutine resid(g, k, u, r, v)
    type(grid_t), intent(inout) :: g
    integer, intent(in) :: k
    real(dp), intent(in) :: u(0:, 0:, 0:)
    real(dp), intent(inout) :: r(0:, 0:, 0:)
    real(dp), intent(in), optional :: v(0:, 0:, 0:)
    integer :: i2, i3, m(3)
    m = g%lev(k)%m
    do i3 = 1, m(3)
      do i2 = 1, m(2)
        call stencil_line(g, u, g%a, m(1), i2, i3)
        if (present(v)) then
          r(1:m(1), i2, i3) = v(1:m(1), i2, i3) - g%au(1:m(1))
        else
          r(1:m(1), i2, i3) = r(1:m(1), i2, i3) - g%au(1:m(1))
        end if
      end do
    end do
    call comm3(g, k, r)
  end subroutine resid

  ! u = u + S r, then the ghosts of u
  subroutine psinv(g, k, r, u)
    type(grid_t), intent(inout) :: g
    integer, intent(in) :: k
    real(dp), intent(in) :: r(0:, 0:, 0:)
    real(dp), intent(inout) :: u(0:, 0:, 0:)
    integer :: i2, i3, m(3)
    m = g%lev(k)%m
    do i3 = 1, m(3)
      do i2 = 1, m(2)
        call stencil_line(g, r, g%c, m(1), i2, i3)
        u(1:m(1), i2, i3) = u(1:m(1), i2, i3) + g%au(1:m(1))
      end do
    end do
    call comm3(g, k, u)
  end subroutine psinv

  ! coarse rc (sizes mc) = P rf: coarse point j <- fine point 2j-1 (local, 1-based)
  subroutine rprj3(rf, rc, mc)
    real(dp), intent(in) :: rf(0:, 0:, 0:)
    real(dp), intent(inout) :: rc(0:, 0:, 0:)
    integer, intent(in) :: mc(3)
    real(dp), parameter :: w(-1:1) = [0.5_dp, 1.0_dp, 0.5_dp]
    integer :: j1, j2, j3, d1, d2, d3
    real(dp) :: s, s2, s1
    do j3 = 1, mc(3)
      do j2 = 1, mc(2)
        do j1 = 1, mc(1)
          s = 0
          do d3 = -1, 1
            s2 = 0
            do d2 = -1, 1
              s1 = 0
              do d1 = -1, 1
                s1 = s1 + w(d1) * rf(2*j1-1+d1, 2*j2-1+d2, 2*j3-1+d3)
              end do
              s2 = s2 + w(d2) * s1
            end do
            s = s + w(d3) * s2
          end do
          rc(j1, j2, j3) = 0.5_dp * s
        end do
      end do
    end do
  end subroutine rprj3

  ! uf (sizes mf, global offset sf) += Q uc (global offset sc): fine point G
  ! (global, 0-based) takes coarse points G/2 and, if G is odd, G/2 + 1
  subroutine interp(uc, sc, uf, sf, mf)
    real(dp), intent(in) :: uc(0:, 0:, 0:)
    integer, intent(in) :: sc(3), sf(3), mf(3)
    real(dp), intent(inout) :: uf(0:, 0:, 0:)
    integer :: i1, i2, i3, j1, j2, j3, e1, e2, e3, a1, a2, a3
    real(dp) :: s, s2, s1, h(0:1)
    h = [1.0_dp, 0.5_dp]
    do i3 = 1, mf(3)
      j3 = (sf(3) + i3 - 1) / 2 - sc(3) + 1
      e3 = mod(sf(3) + i3 - 1, 2)
      do i2 = 1, mf(2)
        j2 = (sf(2) + i2 - 1) / 2 - sc(2) + 1
        e2 = mod(sf(2) + i2 - 1, 2)
        do i1 = 1, mf(1)
          j1 = (sf(1) + i1 - 1) / 2 - sc(1) + 1
          e1 = mod(sf(1) + i1 - 1, 2)
          s = 0
          do a3 = 0, e3
            s2 = 0
            do a2 = 0, e2
              s1 = 0
              do a1 = 0, e1
                s1 = s1 + uc(j1 + a1, j2 + a2, j3 + a3)
              end do
              s2 = s2 + h(e1) * s1
            end do
            s = s + h(e2) * s2
          end do
          uf(i1, i2, i3) = uf(i1, i2, i3) + h(e3) * s
        end do
      end do
    end do
  end subroutine interp

  ! Level kd's residual, gathered into the whole-grid array full (with ghosts)
  subroutine gather_level(g, k, full)
    type(grid_t), intent(inout) :: g
    integer, intent(in) :: k
    real(dp), intent(inout) :: full(0:, 0:, 0:)
    integer :: m(3), cnt, q, rk, i1, i2, i3, c(3), ierr
    m = g%lev(k)%m
    cnt = product(m)
    if (.not. allocated(g%gbuf)) allocate (g%gbuf(cnt * (g%size + 1)))
    q = 0
    do i3 = 1, m(3)
      do i2 = 1, m(2)
        do i1 = 1, m(1)
          q = q + 1
          g%gbuf(q) = g%lev(k)%r(i1, i2, i3)
        end do
      end do
    end do
    call MPI_Allgather(g%gbuf(1:cnt), cnt, MPI_DOUBLE_PRECISION, g%gbuf(cnt+1:), cnt, &
                       MPI_DOUBLE_PRECISION, g%comm, ierr)
    q = cnt
    do rk = 0, g%size - 1
      call MPI_Cart_coords(g%comm, rk, 3, c, ierr)
      c = c * m
      do i3 = 1, m(3)
        do i2 = 1, m(2)
          do i1 = 1, m(1)
            q = q + 1
            full(c(1) + i1, c(2) + i2, c(3) + i3) = g%gbuf(q)
          end do
        end do
      end do
    end do
  end subroutine gather_level

  ! One V-cycle: u(lt) += M r(lt), then r(lt) = v - A u(lt)
  subroutine mg3p(g)
    type(grid_t), intent(inout) :: g
    integer :: k
    real(dp), allocatable :: full(:,:,:)
    do k = g%lt, g%lb + 1, -1
      if (k == g%kd .and. g%kd > g%lb) then
        ! the coarser levels are replicated: restrict from the gathered grid
        allocate (full(0:2**k+1, 0:2**k+1, 0:2**k+1))
        call gather_level(g, k, full)
        call periodic(full, 2**k)
        call rprj3(full, g%lev(k-1)%r, g%lev(k-1)%m)
        deallocate (full)
      else
        call rprj3(g%lev(k)%r, g%lev(k-1)%r, g%lev(k-1)%m)
      end if
      call comm3(g, k - 1, g%lev(k-1)%r)
    end do
    k = g%lb
    g%lev(k)%u = 0
    call psinv(g, k, g%lev(k)%r, g%lev(k)%u)
    do k = g%lb + 1, g%lt
      if (k < g%lt) g%lev(k)%u = 0
      call interp(g%lev(k-1)%u, g%lev(k-1)%s, g%lev(k)%u, g%lev(k)%s, g%lev(k)%m)
      call comm3(g, k, g%lev(k)%u)
      if (k < g%lt) then
        call resid(g, k, g%lev(k)%u, g%lev(k)%r)
      else
        call resid(g, k, g%lev(k)%u, g%lev(k)%r, g%v)
      end if
      call psinv(g, k, g%lev(k)%r, g%lev(k)%u)
    end do
    call resid(g, g%lt, g%lev(g%lt)%u, g%lev(g%lt)%r, g%v)
  end subroutine mg3p

  subroutine periodic(x, n)
    real(dp), intent(inout) :: x(0:, 0:, 0:)
    integer, intent(in) :: n
    x(0, 1:n, 1:n) = x(n, 1:n, 1:n)
    x(n+1, 1:n, 1:n) = x(1, 1:n, 1:n)
    x(0:n+1, 0, 1:n) = x(0:n+1, n, 1:n)
    x(0:n+1, n+1, 1:n) = x(0:n+1, 1, 1:n)
    x(0:n+1, 0:n+1, 0) = x(0:n+1, 0:n+1, n)
    x(0:n+1, 0:n+1, n+1) = x(0:n+1, 0:n+1, 1)
  end subroutine periodic

  ! v: +1 at the 10 largest, -1 at the 10 smallest random numbers
  subroutine make_rhs(g)
    type(grid_t), intent(inout) :: g
    integer, parameter :: nc = 10
    real(dp) :: hiv(nc), lov(nc), allv(nc * g%size), val, idxr(nc), alli(nc * g%size)
    integer(int64) :: hii(nc), loi(nc), x, lin, n
    integer :: m(3), s(3), i1, i2, i3, ierr, j
    real(dp), parameter :: r46 = 0.5_dp**46
    m = g%lev(g%lt)%m
    s = g%lev(g%lt)%s
    n = 2**g%lt
    hiv = -1
    lov = 2
    hii = -1
    loi = -1
    do i3 = 1, m(3)
      do i2 = 1, m(2)
        lin = s(1) + n * (int(s(2) + i2 - 1, int64) + n * int(s(3) + i3 - 1, int64))
        x = mulmod46(powmod46(a_lcg, lin), seed)
        do i1 = 1, m(1)
          x = mulmod46(a_lcg, x)
          val = real(x, dp) * r46
          call keep(hiv, hii, val, lin + i1 - 1, .true.)
          call keep(lov, loi, val, lin + i1 - 1, .false.)
        end do
      end do
    end do
    call MPI_Allgather(hiv, nc, MPI_DOUBLE_PRECISION, allv, nc, MPI_DOUBLE_PRECISION, g%comm, ierr)
    idxr = real(hii, dp)        ! indices < 2^53: exact as reals (one buffer type for MPI)
    call MPI_Allgather(idxr, nc, MPI_DOUBLE_PRECISION, alli, nc, MPI_DOUBLE_PRECISION, g%comm, ierr)
    hiv = -1
    hii = -1
    do j = 1, nc * g%size
      if (alli(j) >= 0) call keep(hiv, hii, allv(j), int(alli(j), int64), .true.)
    end do
    call MPI_Allgather(lov, nc, MPI_DOUBLE_PRECISION, allv, nc, MPI_DOUBLE_PRECISION, g%comm, ierr)
    idxr = real(loi, dp)
    call MPI_Allgather(idxr, nc, MPI_DOUBLE_PRECISION, alli, nc, MPI_DOUBLE_PRECISION, g%comm, ierr)
    lov = 2
    loi = -1
    do j = 1, nc * g%size
      if (alli(j) >= 0) call keep(lov, loi, allv(j), int(alli(j), int64), .false.)
    end do
    g%v = 0
    do j = 1, nc
      call put(hii(j), 1.0_dp)
      call put(loi(j), -1.0_dp)
    end do
    call comm3(g, g%lt, g%v)
  contains
    subroutine put(idx, w)
      integer(int64), intent(in) :: idx
      real(dp), intent(in) :: w
      integer :: c(3), d
      c(1) = int(mod(idx, n))
      c(2) = int(mod(idx / n, n))
      c(3) = int(idx / (n * n))
      do d = 1, 3
        c(d) = c(d) - s(d) + 1
      end do
      if (all(c >= 1) .and. all(c <= m)) g%v(c(1), c(2), c(3)) = w
    end subroutine put
  end subroutine make_rhs

  ! keep the nc largest (big) or smallest values, ties broken by index
  subroutine keep(vals, idx, val, i, big)
    real(dp), intent(inout) :: vals(:)
    integer(int64), intent(inout) :: idx(:)
    real(dp), intent(in) :: val
    integer(int64), intent(in) :: i
    logical, intent(in) :: big
    integer :: j, nc
    nc = size(vals)
    if (.not. better(val, i, vals(nc), idx(nc))) return
    j = nc
    do while (j > 1)
      if (.not. better(val, i, vals(j-1), idx(j-1))) exit
      vals(j) = vals(j-1)
      idx(j) = idx(j-1)
      j = j - 1
    end do
    vals(j) = val
    idx(j) = i
  contains
    logical function better(v1, i1, v2, i2)
      real(dp), intent(in) :: v1, v2
      integer(int64), intent(in) :: i1, i2
      if (i2 < 0) then
        better = .true.
      else if (v1 /= v2) then
        better = (v1 > v2) .eqv. big
      else
        better = i1 < i2
      end if
    end function better
  end subroutine keep

  ! sqrt(sum r^2 / n^3) and an exact, order-independent checksum of the bits:
  ! the sums of the four 16-bit pieces of every value (below 2^53, exact as reals)
  subroutine norms(g, x, rnm2, bits)
    type(grid_t), intent(inout) :: g
    real(dp), intent(in) :: x(0:, 0:, 0:)
    real(dp), intent(out) :: rnm2, bits(4)
    real(dp) :: s, line, loc(5), tot(5)
    integer(int64) :: b, piece(4)
    integer :: i1, i2, i3, m(3), ierr, q
    m = g%lev(g%lt)%m
    s = 0
    piece = 0
    do i3 = 1, m(3)
      do i2 = 1, m(2)
        line = 0
        do i1 = 1, m(1)
          line = line + x(i1, i2, i3)**2
          b = transfer(x(i1, i2, i3), b)
          do q = 1, 4
            piece(q) = piece(q) + iand(shiftr(b, 16 * (q - 1)), 65535_int64)
          end do
        end do
        s = s + line
      end do
    end do
    loc(1) = s
    loc(2:5) = real(piece, dp)
    call MPI_Allreduce(loc, tot, 5, MPI_DOUBLE_PRECISION, MPI_SUM, g%comm, ierr)
    rnm2 = sqrt(tot(1) / real(2**g%lt, dp)**3)
    bits = tot(2:5)
  end subroutine norms

  ! The whole solve; returns the final norm, checksums of u and r, time
  subroutine solve(g, nit, verbose, rnm2, hist, bits_u, bits_r, elapsed)
    type(grid_t), intent(inout) :: g
    integer, intent(in) :: nit
    logical, intent(in) :: verbose
    real(dp), intent(out) :: rnm2, hist(0:), elapsed
    real(dp), intent(out) :: bits_u(4), bits_r(4)
    integer :: it, ierr
    real(dp) :: t0, dummy(4)
    call make_rhs(g)
    g%lev(g%lt)%u = 0
    call MPI_Barrier(g%comm, ierr)
    t0 = MPI_Wtime()
    call resid(g, g%lt, g%lev(g%lt)%u, g%lev(g%lt)%r, g%v)
    call norms(g, g%lev(g%lt)%r, hist(0), dummy)
    do it = 1, nit
      call mg3p(g)
      call norms(g, g%lev(g%lt)%r, hist(it), dummy)
      if (verbose) write (*, '(a,i3,a,es22.15)') '  iteration ', it, ': residual norm ', hist(it)
    end do
    elapsed = MPI_Wtime() - t0
    rnm2 = hist(nit)
    call norms(g, g%lev(g%lt)%r, rnm2, bits_r)
    call norms(g, g%lev(g%lt)%u, t0, bits_u)
  end subroutine solve

end module mgmod

program mg
  use mgmod
  implicit none
  integer :: ierr, rank, size, lt, nit, i
  character(len=16) :: arg
  type(grid_t) :: g, sg
  real(dp) :: rnm2, elapsed, tmax, ref, srnm2, sel
  real(dp), allocatable :: hist(:), shist(:)
  real(dp) :: bu(4), br(4), sbu(4), sbr(4)
  character(len=16) :: tbuf
  logical :: ok, decreasing, same, refok

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  arg = 'S'
  if (command_argument_count() >= 1) call get_command_argument(1, arg)
  ! ref: the final residual norm of this program on 1 rank
  select case (trim(arg))
  case ('S')
    lt = 5; nit = 4; ref = 5.136200796693007e-05_dp
  case ('W')
    lt = 7; nit = 4; ref = 6.683385268004288e-06_dp
  case ('A')
    lt = 8; nit = 4; ref = 1.643434544952697e-04_dp
  case default
    if (rank == 0) write (0, '(3a)') "mg: usage: mg [S|W|A] (got '", trim(arg), "')"
    call MPI_Finalize(ierr)
    stop 2, quiet=.true.
  end select
  if (iand(size, size - 1) /= 0) then
    if (rank == 0) write (0, '(a,i0)') 'mg: the number of ranks must be a power of two, got ', size
    call MPI_Finalize(ierr)
    stop 2, quiet=.true.
  end if

  call grid_setup(g, MPI_COMM_WORLD, lt, arg(1:1))
  if (any(g%dims > 2**lt)) then
    if (rank == 0) write (0, '(a,i0,a,i0,a)') 'mg: ', size, ' ranks split the ', 2**lt, &
        '^3 grid too finely'
    call MPI_Finalize(ierr)
    stop 2, quiet=.true.
  end if
  if (rank == 0) write (*, '(a,a,a,i0,a,i0,a,i0,a,3(i0,a),i0,a)') 'MG class ', arg(1:1), ': ', &
      2**lt, '^3 grid, ', nit, ' V-cycles, ', size, ' ranks (', g%dims(1), ' x ', g%dims(2), &
      ' x ', g%dims(3), '), split down to the ', 2**g%kd, '^3 grid'
  allocate (hist(0:nit), shist(0:nit))
  call solve(g, nit, rank == 0, rnm2, hist, bu, br, elapsed)
  call MPI_Reduce(elapsed, tmax, 1, MPI_DOUBLE_PRECISION, MPI_MAX, 0, MPI_COMM_WORLD, ierr)
  call grid_free(g)

  ok = .true.
  if (rank == 0) then
    decreasing = all([(hist(i) < hist(i-1), i = 1, nit)])
    write (*, '(a,es22.15,a,es10.3,a,l1)') ' final residual norm ', rnm2, ' (initial ', hist(0), &
        '), decreasing every iteration: ', decreasing
    write (*, '(a,8(1x,f0.0))') ' bit checksums u, r:', bu, br
    refok = abs(rnm2 - ref) <= 1.0e-10_dp * abs(ref)
    write (*, '(a,es22.15,a,l1)') ' stored reference ', ref, ': agrees ', refok
    ok = decreasing .and. refok
    if (arg(1:1) == 'S') then
      call grid_setup(sg, MPI_COMM_SELF, lt, arg(1:1))
      call solve(sg, nit, .false., srnm2, shist, sbu, sbr, sel)
      call grid_free(sg)
      same = all(sbu == bu) .and. all(sbr == br) .and. abs(srnm2 - rnm2) <= 1.0e-12_dp * srnm2
      write (*, '(a,es22.15,a,l1)') ' serial reference: norm ', srnm2, ', same bits of u and r: ', same
      ok = ok .and. same
    end if
    if (ok) then
      write (*, '(a)') 'VERIFICATION SUCCESSFUL'
    else
      write (*, '(a)') 'VERIFICATION FAILED'
    end if
    write (tbuf, '(f16.6)') tmax
    write (*, '(a,a,a,i0,a,a,a,a)') 'APP=MG CLASS=', arg(1:1), ' RANKS=', size, ' TIME=', &
        trim(adjustl(tbuf)), ' VERIFIED=', trim(merge('yes', 'no ', ok))
  end if
  call MPI_Bcast(ok, 1, MPI_LOGICAL, 0, MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
  if (.not. ok) stop 1, quiet=.true.
end program mg
