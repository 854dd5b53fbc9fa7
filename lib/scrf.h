! scrf.h -- the SCR constants for Fortran: include 'scrf.h'
!
! The same names and values as scr.h. The subroutines themselves
! (SCR_INIT(IERROR), SCR_ROUTE_FILE(NAME, FILE, IERROR), ...) need no
! declaration; each sets IERROR to SCR_SUCCESS when it succeeds.
!
! This file is valid both as fixed-form and as free-form source:
! statements sit in columns 7-72, there are no continuation lines and
! comments start with '!' in column 1.

      INTEGER SCR_SUCCESS
      PARAMETER (SCR_SUCCESS=0)

! Length of the CHARACTER variables that receive a file or dataset name;
! names passed in must be shorter than this.
      INTEGER SCR_MAX_FILENAME
      PARAMETER (SCR_MAX_FILENAME=1024)

! Kinds of dataset for SCR_START_OUTPUT; add them to combine.
      INTEGER SCR_FLAG_NONE
      PARAMETER (SCR_FLAG_NONE=0)
      INTEGER SCR_FLAG_CHECKPOINT
      PARAMETER (SCR_FLAG_CHECKPOINT=1)
      INTEGER SCR_FLAG_OUTPUT
      PARAMETER (SCR_FLAG_OUTPUT=2)
