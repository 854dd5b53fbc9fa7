! test_fortran.f90 -- the Fortran bindings of SCR in one MPI job, on every rank.
!
! Usage: test_fortran RUN, with RUN 1 in an empty prefix and 2 in the same
! prefix afterwards. Run 1 finds nothing to restart from; run 2 restarts
! from the checkpoint run 1 wrote and reads its file back. Both runs then
! write a checkpoint (ckpt/rank_<r>.dat) and an output dataset
! out.<RUN> (out<RUN>/rank_<r>.txt, holding "rank <r> run <RUN>").
! Prints one "ok - ..." line per check and rank; the first failure prints
! "not ok - ..." and aborts the job with a nonzero exit code.
program test_fortran
  use mpi
  implicit none
  include 'scrf.h'

  integer :: rank, run, ierr, mpierr, flag, u, ios
  character(len=16) :: arg
  character(len=64) :: version
  character(len=1) :: tiny
  character(len=SCR_MAX_FILENAME) :: name, name2, fname, path, value
  character(len=1500) :: toolong
  character(len=80) :: line, expect

  call MPI_Init(mpierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, mpierr)
  call get_command_argument(1, arg)
  read(arg, *, iostat=ios) run
  if (ios /= 0 .or. (run /= 1 .and. run /= 2)) call fail('usage: test_fortran 1|2', 0)

  ! --- before SCR_INIT ---------------------------------------------------
  ! the test script exports SCR_FLUSH=1
  call SCR_CONFIG('SCR_FLUSH', value, ierr)
  call check_ierr('scr_config_queries_a_parameter', ierr)
  call expect_true('scr_config_returns_the_value_from_the_environment', value == '1')

  call SCR_INIT(ierr)
  call check_ierr('scr_init', ierr)

  ! --- strings across the binding ------------------------------------------
  call SCR_GET_VERSION(version, ierr)
  call check_ierr('scr_get_version', ierr)
  call expect_true('version_is_not_blank', len_trim(version) > 0)

  call SCR_GET_VERSION(tiny, ierr)
  call expect_true('version_too_long_for_its_variable_is_an_error_not_a_cut', &
                   ierr /= SCR_SUCCESS .and. tiny == ' ')

  ! outside any phase a name comes back unchanged: blanks trimmed, then padded
  call SCR_ROUTE_FILE('plain.dat', path, ierr)
  call check_ierr('route_file_outside_a_phase', ierr)
  call expect_true('route_file_outside_a_phase_returns_the_name', path == 'plain.dat')

  call SCR_ROUTE_FILE('plain.dat', tiny, ierr)
  call expect_true('routed_path_too_long_for_its_variable_is_an_error', &
                   ierr /= SCR_SUCCESS .and. tiny == ' ')

  toolong = repeat('x', len(toolong))
  call SCR_ROUTE_FILE(toolong, path, ierr)
  call expect_true('name_of_scr_max_filename_characters_or_more_is_refused', &
                   ierr /= SCR_SUCCESS .and. path == ' ')

  ! --- restart -------------------------------------------------------------
  write(fname, '(a,i0,a)') 'ckpt/rank_', rank, '.dat'

  call SCR_HAVE_RESTART(flag, name, ierr)
  call check_ierr('scr_have_restart', ierr)
  if (run == 1) then
    call expect_true('empty_prefix_has_no_restart', flag == 0 .and. name == ' ')
  else
    call expect_true('checkpoint_of_run_1_is_there_to_restart_from', &
                     flag == 1 .and. name /= ' ')

    call SCR_START_RESTART(name2, ierr)
    call check_ierr('scr_start_restart', ierr)
    call expect_true('start_restart_names_the_checkpoint_have_restart_named', name2 == name)

    call SCR_ROUTE_FILE(fname, path, ierr)
    call check_ierr('scr_route_file_in_restart', ierr)
    open(newunit=u, file=trim(path), status='old', action='read', iostat=ios)
    if (ios /= 0) call fail('cannot open restart file ' // trim(path), ios)
    read(u, '(a)', iostat=ios) line
    if (ios /= 0) call fail('cannot read restart file ' // trim(path), ios)
    close(u)
    write(expect, '(a,i0)') 'rank ', rank
    call expect_true('restart_file_holds_what_run_1_wrote', line == expect)

    call SCR_COMPLETE_RESTART(1, ierr)
    call check_ierr('scr_complete_restart', ierr)
  end if

  ! --- checkpoint ------------------------------------------------------------
  call SCR_NEED_CHECKPOINT(flag, ierr)
  call check_ierr('scr_need_checkpoint', ierr)
  call expect_true('need_checkpoint_flag_is_0_or_1', flag == 0 .or. flag == 1)

  call SCR_START_CHECKPOINT(ierr)
  call check_ierr('scr_start_checkpoint', ierr)
  call SCR_ROUTE_FILE(fname, path, ierr)
  call check_ierr('scr_route_file_in_checkpoint', ierr)
  call expect_true('routed_path_is_not_blank', path /= ' ')
  write(line, '(a,i0)') 'rank ', rank
  call write_file(path, line)
  call SCR_COMPLETE_CHECKPOINT(1, ierr)
  call check_ierr('scr_complete_checkpoint', ierr)

  ! --- output ----------------------------------------------------------------
  write(name, '(a,i0)') 'out.', run
  call SCR_START_OUTPUT(name, SCR_FLAG_OUTPUT, ierr)
  call check_ierr('scr_start_output', ierr)
  write(fname, '(a,i0,a,i0,a)') 'out', run, '/rank_', rank, '.txt'
  call SCR_ROUTE_FILE(fname, path, ierr)
  call check_ierr('scr_route_file_in_output', ierr)
  write(line, '(a,i0,a,i0)') 'rank ', rank, ' run ', run
  call write_file(path, line)
  call SCR_COMPLETE_OUTPUT(1, ierr)
  call check_ierr('scr_complete_output', ierr)

  ! --- end -------------------------------------------------------------------
  call SCR_SHOULD_EXIT(flag, ierr)
  call check_ierr('scr_should_exit', ierr)
  call expect_true('nothing_asks_the_job_to_exit', flag == 0)

  call SCR_FINALIZE(ierr)
  call check_ierr('scr_finalize', ierr)
  call MPI_Finalize(mpierr)

contains

  subroutine check_ierr(what, code)
    character(len=*), intent(in) :: what
    integer, intent(in) :: code
    if (code /= SCR_SUCCESS) call fail(what, code)
    call pass(what)
  end subroutine check_ierr

  subroutine expect_true(what, cond)
    character(len=*), intent(in) :: what
    logical, intent(in) :: cond
    if (.not. cond) call fail(what, 0)
    call pass(what)
  end subroutine expect_true

  subroutine pass(what)
    character(len=*), intent(in) :: what
    write(*, '(a,a,a,i0,a)') 'ok - ', what, ' (rank ', rank, ')'
  end subroutine pass

  ! One rank failing must end all of them: the others may be waiting in a
  ! collective call.
  subroutine fail(what, code)
    character(len=*), intent(in) :: what
    integer, intent(in) :: code
    integer :: e
    write(*, '(a,a,a,i0,a,i0,a)') 'not ok - ', what, ' (rank ', rank, ', code ', code, ')'
    flush(6)
    call MPI_Abort(MPI_COMM_WORLD, 1, e)
    error stop 1
  end subroutine fail

  ! Write one line to a new file at a routed path.
  subroutine write_file(at, text)
    character(len=*), intent(in) :: at, text
    integer :: unit, st
    open(newunit=unit, file=trim(at), status='replace', action='write', iostat=st)
    if (st /= 0) call fail('cannot create ' // trim(at), st)
    write(unit, '(a)', iostat=st) trim(text)
    if (st /= 0) call fail('cannot write ' // trim(at), st)
    close(unit, iostat=st)
    if (st /= 0) call fail('cannot close ' // trim(at), st)
  end subroutine write_file

end program test_fortran
