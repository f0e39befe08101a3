package author

// serialise is the solution with a cudaStreamSynchronize of each launch's
// stream right after every kernel launch of its regions that names a
// stream (not 0): what a student who does not trust stream order writes,
// and the streams' kernels never run at once (max_concurrent_streams 1).
// Launches on the default stream are left alone: they overlap nothing
// anyway.
func (m *mutator) serialise() {
	first := 0
	m.add("serialise", 0, "", func(lines []string) []string {
		for _, r := range m.src.Regions {
			a, b := r.SolutionLines()
			for n := a; n <= b; n++ {
				l := lines[n-1]
				code := m.code[n-1]
				stream := launchStream(code, l)
				if stream == "" || !statement(code) || jump(code) || !m.joint(n) || !pure(stream, launchStream(code, code)) {
					continue
				}
				if lineEnding(l) == "" {
					l += "\n"
				}
				lines[n-1] = l + leading(l) + "cudaStreamSynchronize(" + stream + ");" + eolOf(l)
				if first == 0 {
					first = n
				}
			}
		}
		if first == 0 {
			return nil
		}
		return lines
	})
	if k := len(m.out) - 1; k >= 0 && m.out[k].Op == "serialise" {
		m.out[k].ID, m.out[k].Line = "serialise", first
	}
}
