package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cudalessons/lessons/internal/iostreams"
)

// commandsPage is the guide's reference of every command and flag,
// written from the command tree itself.
var commandsPage = filepath.Join("..", "..", "docs", "reference", "commands.md")

// TestCommandsReference fails when docs/reference/commands.md is not what
// the command tree says; -update rewrites it.
func TestCommandsReference(t *testing.T) {
	io, _, _, _ := iostreams.Test()
	got := commandsMarkdown(NewRoot(io))
	if *update {
		if err := os.MkdirAll(filepath.Dir(commandsPage), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(commandsPage, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(commandsPage)
	if err != nil {
		t.Fatalf("%v (make it with go test ./internal/cli -run TestCommandsReference -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not what the command tree says: run go test ./internal/cli -run TestCommandsReference -update", commandsPage)
	}
}

func commandsMarkdown(root *cobra.Command) []byte {
	var cmds []*cobra.Command
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		cmds = append(cmds, c)
		for _, s := range c.Commands() { // cobra sorts them by name
			walk(s)
		}
	}
	walk(root)
	var b strings.Builder
	b.WriteString("# Commands and flags\n\n")
	b.WriteString("Generated from the command tree (`go test ./internal/cli -run TestCommandsReference -update`);\n")
	b.WriteString("a test fails when this page and the commands' own help disagree.\n")
	b.WriteString("`lessons help COMMAND` and `lessons COMMAND --help` print the same text.\n\n")
	b.WriteString("Every command takes `--course DIR`: the course folder (default: the folder holding\n")
	b.WriteString("`course.toml`, here or above, or `$LESSONS_COURSE`). `lessons completion SHELL` writes\n")
	b.WriteString("a shell's completion script (cobra's own). Exit status: 0 done, 1 failed (a check, a\n")
	b.WriteString("grade, a verify), 2 a usage error or a tool missing (nothing judged).\n\n")
	for _, c := range cmds[1:] {
		if c.Hidden {
			continue
		}
		fmt.Fprintf(&b, "- [`%s`](#%s): %s\n", c.CommandPath(), anchorOf(c.CommandPath()), c.Short)
	}
	for _, c := range cmds {
		title := c.CommandPath()
		if c.Hidden {
			title += " (internal)"
		}
		fmt.Fprintf(&b, "\n## %s\n\n", title)
		if c.Hidden {
			b.WriteString("Run by lessons itself, not by hand.\n\n")
		}
		text := c.Long
		if text == "" {
			text = c.Short
		}
		fmt.Fprintf(&b, "%s\n\n", strings.TrimSpace(text))
		fmt.Fprintf(&b, "```\n%s\n```\n", strings.TrimSpace(c.UseLine()))
		if c.Example != "" {
			fmt.Fprintf(&b, "\nExamples:\n\n```\n%s\n```\n", strings.TrimRight(c.Example, "\n "))
		}
		var rows []string
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if f.Hidden || f.Name == "help" {
				return
			}
			name, usage := pflag.UnquoteUsage(f)
			flag := "`--" + f.Name
			if name != "" {
				flag += " " + name
			}
			flag += "`"
			if f.Shorthand != "" {
				flag = "`-" + f.Shorthand + "`, " + flag
			}
			def := ""
			switch {
			case f.Name == "jobs":
				def = "the machine's cores" // runtime.NumCPU(): the page must not depend on the machine it was made on
			case f.DefValue == "", f.DefValue == "false", f.DefValue == "[]", f.DefValue == "0", f.DefValue == "0s":
			default:
				def = "`" + f.DefValue + "`"
			}
			rows = append(rows, fmt.Sprintf("| %s | %s | %s |", flag, cell(usage), def))
		})
		if len(rows) > 0 {
			b.WriteString("\n| flag | what it does | default |\n| --- | --- | --- |\n")
			b.WriteString(strings.Join(rows, "\n") + "\n")
		}
	}
	return []byte(b.String())
}

// cell is text made safe for a markdown table's cell.
func cell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.Join(strings.Fields(s), " ")
}

// anchorOf is the fragment a forge makes of a heading.
func anchorOf(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}
