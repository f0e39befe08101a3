package author

import "testing"

// TestOpWrongBuffer: in a loop, each buffer argument replaced by the one
// it had the first time round; a buffer of another type is never swapped
// in.
func TestOpWrongBuffer(t *testing.T) {
	got := opMutants(t, "wrong-buffer", `int main() {
    float *a, *b;
    int* c;
    CHECK(cudaMalloc(&a, 64));
    CHECK(cudaMalloc(&b, 64));
    CHECK(cudaMalloc(&c, 64));
    for (int i = 0; i < 4; i++) {
        // BEGIN SOLUTION
        k<<<1, 32, 0, s>>>(a, c);
        // END SOLUTION
    }
}
`)
	wantMutants(t, got,
		"wrong-buffer@9/a=first | -k<<<1, 32, 0, s>>>(a, c); ; +static auto lessons_first = a; ; +k<<<1, 32, 0, s>>>(lessons_first, c);",
		"wrong-buffer@9/c=first | -k<<<1, 32, 0, s>>>(a, c); ; +static auto lessons_first = c; ; +k<<<1, 32, 0, s>>>(a, lessons_first);",
	)
}
