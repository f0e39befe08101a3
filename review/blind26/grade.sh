#!/bin/bash
# Grades the twenty-sixth blind set (issue 36) as a class, each file of
# review/blind26/<exercise>/ a student holding only that file:
# bench/blind-grade.sh does it and says how (OUT, SETS, GRADE_TIMEOUT,
# LESSONS). Run from the root of main on a GPU machine.
exec bash bench/blind-grade.sh review/blind26 "$@"
