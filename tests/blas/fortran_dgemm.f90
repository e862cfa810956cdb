! A Fortran client of the BLAS drop-in: DGEMM as Fortran code calls it (the dgemm_ symbol, hidden
! character lengths), with random data, every N/T transpose pair, leading dimensions above the
! minimum, and C's padding rows poisoned. Each result is checked against a loop in extended
! precision (real(10) on x86: 64-bit mantissa) within (k+3) eps of the magnitudes involved, and the
! padding of C and all of A and B must come back bitwise unchanged. Exits 1 on any failure.
program fortran_dgemm
  use, intrinsic :: iso_fortran_env, only: int64, output_unit
  use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_quiet_nan
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  ! Extended precision where the compiler has it, else quad, else double (the check still runs).
  integer, parameter :: xp = merge(selected_real_kind(18), merge(selected_real_kind(30), dp, &
                                   selected_real_kind(30) > 0), selected_real_kind(18) > 0)
  external :: dgemm

  type :: gemm_case
    character :: transa, transb
    integer :: m, n, k, pad
    real(dp) :: alpha, beta
  end type gemm_case

  type(gemm_case), parameter :: cases(*) = [ &
    gemm_case('N', 'N', 17, 9, 33, 3, 1.0_dp, 0.0_dp), &
    gemm_case('N', 'T', 64, 65, 31, 1, -0.75_dp, 1.0_dp), &
    gemm_case('T', 'N', 1, 50, 7, 4, 2.0_dp, 0.5_dp), &
    gemm_case('T', 'T', 40, 1, 90, 2, 1.0_dp, -1.25_dp), &
    gemm_case('n', 't', 33, 32, 1, 5, 0.5_dp, 2.0_dp), &
    gemm_case('t', 'n', 128, 96, 80, 7, 1.0_dp, 0.0_dp), &
    gemm_case('N', 'N', 150, 140, 130, 1, -1.0_dp, 1.0_dp), &
    gemm_case('C', 'N', 9, 11, 13, 2, 1.5_dp, 0.25_dp) ]
  integer :: t, failures

  call seed_random()
  failures = 0
  do t = 1, size(cases)
    failures = failures + check(cases(t))
  end do
  write (output_unit, '(i0, a, i0, a)') failures, ' of ', size(cases), ' dgemm cases failed'
  if (failures /= 0) stop 1

contains

  subroutine seed_random()
    integer :: n
    integer, allocatable :: seed(:)
    call random_seed(size=n)
    allocate (seed(n))
    seed = 20261129
    call random_seed(put=seed)
  end subroutine seed_random

  logical function transposed(trans)
    character, intent(in) :: trans
    transposed = trans /= 'N' .and. trans /= 'n'
  end function transposed

  ! Returns 1 when the case fails (and prints why), else 0.
  integer function check(c) result(failed)
    type(gemm_case), intent(in) :: c
    real(dp), allocatable :: a(:, :), b(:, :), cm(:, :), a0(:, :), b0(:, :), c0(:, :)
    integer :: arows, acols, brows, bcols, lda, ldb, ldc, i, j, p, wrong
    real(xp) :: sum, magnitude, prod, expected, tolerance
    real(dp) :: poison

    poison = ieee_value(poison, ieee_quiet_nan)
    if (transposed(c%transa)) then
      arows = c%k; acols = c%m
    else
      arows = c%m; acols = c%k
    end if
    if (transposed(c%transb)) then
      brows = c%n; bcols = c%k
    else
      brows = c%k; bcols = c%n
    end if
    lda = max(1, arows) + c%pad
    ldb = max(1, brows) + c%pad + 1
    ldc = max(1, c%m) + c%pad
    allocate (a(lda, acols), b(ldb, bcols), cm(ldc, c%n))
    call random_number(a)
    call random_number(b)
    call random_number(cm)
    a = 2 * a - 1
    b = 2 * b - 1
    cm = 2 * cm - 1
    cm(c%m + 1:, :) = poison                     ! padding rows: must stay as they are
    if (c%beta == 0) cm(1:c%m, :) = poison       ! beta 0: C is not read, NaN must not show
    a0 = a
    b0 = b
    c0 = cm

    call dgemm(c%transa, c%transb, c%m, c%n, c%k, c%alpha, a, lda, b, ldb, c%beta, cm, ldc)

    wrong = 0
    do j = 1, c%n
      do i = 1, c%m
        sum = 0
        magnitude = 0
        do p = 1, c%k
          prod = real(op(a0, c%transa, i, p), xp) * real(op(b0, c%transb, p, j), xp)
          sum = sum + prod
          magnitude = magnitude + abs(prod)
        end do
        expected = real(c%alpha, xp) * sum
        magnitude = abs(real(c%alpha, xp)) * magnitude
        if (c%beta /= 0) then
          expected = expected + real(c%beta, xp) * real(c0(i, j), xp)
          magnitude = magnitude + abs(real(c%beta, xp) * real(c0(i, j), xp))
        end if
        tolerance = (c%k + 3) * real(epsilon(1.0_dp), xp) * magnitude + tiny(1.0_dp)
        if (.not. (abs(real(cm(i, j), xp) - expected) <= tolerance)) then
          wrong = wrong + 1
          if (wrong <= 3) write (output_unit, '(a, 2(1x, i0), a, es24.16, a, es24.16)') &
            'FAIL ' // trim(describe(c)) // ': C(i,j) =', i, j, ' is', cm(i, j), ' expected', real(expected, dp)
        end if
      end do
    end do
    if (any(transfer(cm(c%m + 1:, :), 0_int64, size(cm(c%m + 1:, :))) /= &
            transfer(c0(c%m + 1:, :), 0_int64, size(c0(c%m + 1:, :))))) then
      wrong = wrong + 1
      write (output_unit, '(a)') 'FAIL ' // trim(describe(c)) // ': the padding rows of C were written'
    end if
    if (any(transfer(a, 0_int64, size(a)) /= transfer(a0, 0_int64, size(a0))) .or. &
        any(transfer(b, 0_int64, size(b)) /= transfer(b0, 0_int64, size(b0)))) then
      wrong = wrong + 1
      write (output_unit, '(a)') 'FAIL ' // trim(describe(c)) // ': A or B was written'
    end if
    failed = merge(1, 0, wrong /= 0)
  end function check

  ! op(X)(i, p): X(i, p), or X(p, i) when transposed.
  real(dp) function op(x, trans, i, p)
    real(dp), intent(in) :: x(:, :)
    character, intent(in) :: trans
    integer, intent(in) :: i, p
    if (transposed(trans)) then
      op = x(p, i)
    else
      op = x(i, p)
    end if
  end function op

  function describe(c) result(text)
    type(gemm_case), intent(in) :: c
    character(len=96) :: text
    write (text, '(a, a, a, a, a, 3(i0, a), f6.2, a, f6.2, a)') "dgemm('", c%transa, "', '", c%transb, "', ", &
      c%m, ', ', c%n, ', ', c%k, ', alpha ', c%alpha, ', beta ', c%beta, ')'
    text = trim(text)
  end function describe

end program fortran_dgemm
