package author

import "testing"

// TestOpRecordLate: an interprocess event's record moved past the next
// send to the other process, over the statements between; not past a
// loop's end, a return or another record, nor in a file that shares no
// event with another process.
func TestOpRecordLate(t *testing.T) {
	got := opMutants(t, "record-late", `void run(int sock, int* block, cudaStream_t s) {
    cudaEvent_t filled;
    cudaEventCreateWithFlags(&filled, cudaEventInterprocess | cudaEventDisableTiming);
    for (int r = 0; r < 4; r++) {
        // BEGIN SOLUTION
        cudaEventRecord(filled, s);
        cudaMemPoolPtrExportData data;
        cudaMemPoolExportPointer(&data, block);
        if (!send_all(sock, &data, sizeof data)) { return; }
        cudaEventRecord(filled, s);
        // END SOLUTION
    }
    // BEGIN SOLUTION
    cudaEventRecord(filled, s);
    cudaEventRecord(filled, s);
    write(sock, "a", 1);
    // END SOLUTION
    // BEGIN SOLUTION
    cudaEventRecord(filled, s);
    return;
    // END SOLUTION
    send(sock, "a", 1, 0);
}
`)
	wantMutants(t, got,
		"record-late@6 | -cudaEventRecord(filled, s); ; -cudaMemPoolPtrExportData data; ; -cudaMemPoolExportPointer(&data, block); ; -if (!send_all(sock, &data, sizeof data)) { return; } ; +cudaMemPoolPtrExportData data; ; +cudaMemPoolExportPointer(&data, block); ; +if (!send_all(sock, &data, sizeof data)) { return; } ; +cudaEventRecord(filled, s);",
		"record-late@15 | -cudaEventRecord(filled, s); ; -write(sock, \"a\", 1); ; +write(sock, \"a\", 1); ; +cudaEventRecord(filled, s);",
	)
	none := opMutants(t, "record-late", `void run(int sock, cudaEvent_t e, cudaStream_t s) {
    // BEGIN SOLUTION
    cudaEventRecord(e, s);
    write(sock, "a", 1);
    // END SOLUTION
}
`)
	wantMutants(t, none)
}
