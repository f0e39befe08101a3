#!/bin/bash
# Grades the twenty-seventh blind set (issue 36) as a class, each file of
# review/blind27/<exercise>/ a student holding only that file:
# bench/blind-grade.sh does it and says how (OUT, SETS, GRADE_TIMEOUT,
# LESSONS). Run from the root of main on a GPU machine.
exec bash bench/blind-grade.sh review/blind27 "$@"
