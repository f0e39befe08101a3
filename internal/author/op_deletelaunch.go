package author

// deleteLaunch leaves out a kernel launch (its comments stay).
func (m *mutator) deleteLaunch(n int) {
	code := m.code[n-1]
	if !launchStmtRE.MatchString(code) || !statement(code) {
		return
	}
	m.add("delete-launch", n, "", func(lines []string) []string {
		return m.deleteLine(lines, n)
	})
}
