package author

// deleteLaunch leaves out a kernel launch.
func (m *mutator) deleteLaunch(n int) {
	l := m.src.Lines[n-1]
	if !launchStmtRE.MatchString(stripComment(l)) || !statement(l) {
		return
	}
	m.add("delete-launch", n, "", func(lines []string) []string {
		return append(lines[:n-1], lines[n:]...)
	})
}
