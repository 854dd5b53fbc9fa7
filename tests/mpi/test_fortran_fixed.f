! test_fortran_fixed.f -- scrf.h in a fixed-form program: SCR_INIT and
! SCR_FINALIZE between MPI_INIT and MPI_FINALIZE, checked against
! SCR_SUCCESS. Prints "ok - ..." lines; a failure prints "not ok - ..."
! and aborts the job with a nonzero exit code.
      PROGRAM TFIXED
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INCLUDE 'scrf.h'
      INTEGER IERR, MPIERR

      CALL MPI_INIT(MPIERR)

      CALL SCR_INIT(IERR)
      IF (IERR .NE. SCR_SUCCESS) THEN
        WRITE(*, '(A,I0)') 'not ok - fixed_form_scr_init ', IERR
        CALL MPI_ABORT(MPI_COMM_WORLD, 1, MPIERR)
      END IF
      WRITE(*, '(A)') 'ok - fixed_form_scr_init'

      CALL SCR_FINALIZE(IERR)
      IF (IERR .NE. SCR_SUCCESS) THEN
        WRITE(*, '(A,I0)') 'not ok - fixed_form_scr_finalize ', IERR
        CALL MPI_ABORT(MPI_COMM_WORLD, 1, MPIERR)
      END IF
      WRITE(*, '(A)') 'ok - fixed_form_scr_finalize'

      CALL MPI_FINALIZE(MPIERR)
      END
