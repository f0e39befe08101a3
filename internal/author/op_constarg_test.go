package author

import (
	"strings"
	"testing"
)

// TestOpConstArg: each name that holds a command-line argument (a variable
// of main, a parameter passed one, a member set from one, a variable
// computed from one) replaced by its value in the default run; a
// declaration, an assignment to the name, its address, an increment, a
// print, and a value that names a local of main are left alone.
func TestOpConstArg(t *testing.T) {
	got := opMutants(t, "const-arg", `#define BLOCKS 4
static const size_t MiB = 1 << 20;
static int arg(int argc, char** argv, int i, int def, int hi) { return i < argc ? atoi(argv[i]) : def; }
class Pipeline {
public:
    Pipeline(int count, size_t bytes) {
        // BEGIN SOLUTION
        count_ = count;
        CHECK(cudaMalloc(&p_, bytes));
        // END SOLUTION
    }
    void drain() {
        // BEGIN SOLUTION
        for (int i = 0; i < count_; i++) CHECK(cudaStreamSynchronize(s_[i]));
        refresh(&count_); ++count_;
        // END SOLUTION
    }
    int count_;
};
int main(int argc, char** argv) {
    const int iterations = arg(argc, argv, 1, 12, 64), streams = arg(argc, argv, 2, 4, 16), n = 1 << 20;
    const size_t bytes = (size_t)arg(argc, argv, 3, 32, 256) * MiB, other = (size_t)arg(argc, argv, 4, 8, 9) * n;
    Pipeline p(streams, bytes);
    // BEGIN SOLUTION
    for (int it = 0; it < iterations; it++) k<<<BLOCKS, 32>>>(it, iterations, n);
    iterations = 3;
    // END SOLUTION
}
void derived(int argc, char** argv) {
    const int mib = arg(argc, argv, 2, 4, 8);
    const int n = mib << 18, m = n * 2;
    // BEGIN SOLUTION
    int mib2 = 0;
    CHECK(cudaMemsetAsync(p, 0, m, s));
    return mib;
    // END SOLUTION
}
`)
	wantMutants(t, got,
		"const-arg@8/count | -count_ = count; ; +count_ = (4);",
		"const-arg@9/bytes | -CHECK(cudaMalloc(&p_, bytes)); ; +CHECK(cudaMalloc(&p_, ((size_t)32 * MiB)));",
		"const-arg@14/count_ | -for (int i = 0; i < count_; i++) CHECK(cudaStreamSynchronize(s_[i])); ; +for (int i = 0; i < (4); i++) CHECK(cudaStreamSynchronize(s_[i]));",
		"const-arg@25/iterations | -for (int it = 0; it < iterations; it++) k<<<BLOCKS, 32>>>(it, iterations, n); ; +for (int it = 0; it < (12); it++) k<<<BLOCKS, 32>>>(it, (12), n);",
		"const-arg@34/m | -CHECK(cudaMemsetAsync(p, 0, m, s)); ; +CHECK(cudaMemsetAsync(p, 0, (((4) << 18) * 2), s));",
		"const-arg@35/mib | -return mib; ; +return (4);",
	)
}

// TestConstArgTakesTheDefaultRunsArguments: where the spec's public run
// gives arguments, the constant is the value they give, not the
// program's default; an argument that is no number leaves the name
// alone.
func TestConstArgTakesTheDefaultRunsArguments(t *testing.T) {
	src, err := Parse("x.cu", []byte(`static int arg(int argc, char** argv, int i, int def) { return i < argc ? atoi(argv[i]) : def; }
int main(int argc, char** argv) {
    const int rounds = arg(argc, argv, 1, 6), mib = arg(argc, argv, 2, 32);
    // BEGIN SOLUTION
    for (int r = 0; r < rounds; r++) CHECK(cudaMallocAsync(&p, mib, s));
    // END SOLUTION
}
`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range Mutants(src, []RecordedRun{{Args: []string{"9", "--big"}}}) {
		if m.Op == "const-arg" {
			got = append(got, m.ID+" "+strings.TrimSpace(strings.Split(m.Diff, "\n")[2]))
		}
	}
	wantMutants(t, got, "const-arg@5/rounds +    for (int r = 0; r < (9); r++) CHECK(cudaMallocAsync(&p, mib, s));")
}
