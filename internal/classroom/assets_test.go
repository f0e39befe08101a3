package classroom

import (
	"strings"
	"testing"
)

// class.js takes the page's DOM helpers from serve's dom.js (loaded
// before it on every student's page) rather than keeping a copy.
func TestClassScriptHasNoCopyOfTheHelpers(t *testing.T) {
	js, err := assets.ReadFile("assets/class.js")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(js), "function el(") || strings.Contains(string(js), "function button(") || !strings.Contains(string(js), "window.lessonsDOM") {
		t.Error("class.js keeps its own copy of the page's helpers")
	}
}
