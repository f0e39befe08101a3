package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// classToken is the script command classtoken BASE LINKS: a student signs
// in with the first link of the file LINKS (lessons invite's CSV) at the
// class server BASE, waiting for it to start, asks the page for the
// token of lessons submit and sets $LESSONS_CLASS_TOKEN to it.
func classToken(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: classtoken BASE LINKS")
	}
	link := regexp.MustCompile(`signin\?link=([0-9a-f]+)`).FindStringSubmatch(ts.ReadFile(args[1]))
	if link == nil {
		ts.Fatalf("classtoken: no sign-in link in %s", args[1])
	}
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	post := func(path, ctype, body string) (*http.Response, error) {
		req, _ := http.NewRequest("POST", args[0]+path, strings.NewReader(body))
		req.Header.Set("Content-Type", ctype)
		req.Header.Set("Origin", args[0])
		return client.Do(req)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		res, err := post("/_class/signin", "application/x-www-form-urlencoded", url.Values{"link": {link[1]}}.Encode())
		if err == nil {
			res.Body.Close()
			if res.StatusCode != http.StatusSeeOther {
				ts.Fatalf("classtoken: sign-in: %s", res.Status)
			}
			break
		}
		if time.Now().After(deadline) {
			ts.Fatalf("classtoken: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	res, err := post("/_class/api/token", "application/json", "{}")
	ts.Check(err)
	defer res.Body.Close()
	var v struct{ Token string }
	if err := json.NewDecoder(res.Body).Decode(&v); err != nil || v.Token == "" {
		ts.Fatalf("classtoken: %s: %v", res.Status, err)
	}
	ts.Setenv("LESSONS_CLASS_TOKEN", v.Token)
}

// classAPI is the script command classapi METHOD URL [JSON]: a request
// with $LESSONS_CLASS_TOKEN as lessons submit sends it; stdout is the
// status and the body. It fails on a status other than 200 (with !, on 200).
func classAPI(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: classapi METHOD URL [JSON]")
	}
	var body io.Reader
	if len(args) == 3 {
		body = strings.NewReader(args[2])
	}
	req, err := http.NewRequest(args[0], args[1], body)
	ts.Check(err)
	req.Header.Set("Authorization", "Bearer "+ts.Getenv("LESSONS_CLASS_TOKEN"))
	req.Header.Set("Content-Type", "application/json")
	res, err := (&http.Client{Timeout: 60 * time.Second}).Do(req)
	ts.Check(err)
	data, _ := io.ReadAll(res.Body)
	res.Body.Close()
	fmt.Fprintf(ts.Stdout(), "%s\n%s", res.Status, data)
	if ok := res.StatusCode == http.StatusOK; ok == neg {
		ts.Fatalf("classapi %s %s: %s\n%s", args[0], args[1], res.Status, data)
	}
}
