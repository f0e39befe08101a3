package classroom

import (
	"errors"
	"strings"
	"testing"
)

func TestParseRoster(t *testing.T) {
	got, err := ParseRoster("roster.csv", strings.NewReader("id,name,email\nada,Ada Lovelace,ada@uni.example\n\nbob,\"Bob, Jr\",\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != "ada" || got[1].Name != "Bob, Jr" || got[1].Email != "" {
		t.Fatalf("got %+v", got)
	}
}

func TestParseRosterErrorsNameTheLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"ada,A,a@x.example\nada,B,b@x.example\n", "roster.csv:2: id ada is already on line 1"},
		{"ada,A\n", "roster.csv:1: 2 fields"},
		{"ok,A,a@x.example\n../eve,E,e@x.example\n", "roster.csv:2: id \"../eve\""},
		{"instructor,I,i@x.example\n", "roster.csv:1: id \"instructor\""},
		{"ada,A,not-an-address\n", "roster.csv:1: email"},
		{"ada,\"A,a@x.example\n", "roster.csv:1:"},
		{"", "no students"},
	} {
		_, err := ParseRoster("roster.csv", strings.NewReader(tc.in))
		var re *RosterError
		if !errors.As(err, &re) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.in, err, tc.want)
		}
	}
}

func FuzzParseRoster(f *testing.F) {
	f.Add("id,name,email\nada,Ada,ada@x.example\n")
	f.Add("a,\"b\nc\",d@e.f\n")
	f.Fuzz(func(t *testing.T, in string) {
		got, err := ParseRoster("r.csv", strings.NewReader(in))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "roster r.csv:") {
				t.Fatalf("error without file and line: %v", err)
			}
			return
		}
		seen := map[string]bool{}
		for _, s := range got {
			if !ValidID(s.ID) || seen[s.ID] {
				t.Fatalf("accepted id %q", s.ID)
			}
			seen[s.ID] = true
		}
	})
}
