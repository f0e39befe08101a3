#!/bin/bash
# Every blind set's files of one exercise (review/blind*/$EX, EX=peer-pool by
# default) graded as one class, on a machine with the GPUs it needs, the
# students named SET--FILE: bench/blind-grade.sh --exercise does it and
# says how (OUT, GRADE_TIMEOUT, LESSONS).
exec bash bench/blind-grade.sh --exercise "${EX:-peer-pool}"
