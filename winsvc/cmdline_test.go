package winsvc

import "testing"

func TestEscapeArg(t *testing.T) {
	// Expected values are what syscall.EscapeArg returns on Windows.
	cases := map[string]string{
		"":                                     `""`,
		"agent":                                `agent`,
		`C:\ProgramData\svc-ctl\svc-ctl.toml`:  `C:\ProgramData\svc-ctl\svc-ctl.toml`,
		`C:\Program Files\svc-ctl\svc-ctl.exe`: `"C:\Program Files\svc-ctl\svc-ctl.exe"`,
		`a b`:                                  `"a b"`,
		`a"b`:                                  `a\"b`,
		`a\"b`:                                 `a\\\"b`,
		`C:\dir with space\`:                   `"C:\dir with space\\"`,
		"tab\there":                            "\"tab\there\"",
	}
	for in, want := range cases {
		if got := EscapeArg(in); got != want {
			t.Errorf("EscapeArg(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestCommandLine(t *testing.T) {
	got := CommandLine(`C:\Program Files\svc-ctl\svc-ctl.exe`, "agent", "--config", `C:\Users\Al Ice\svc-ctl.toml`)
	want := `"C:\Program Files\svc-ctl\svc-ctl.exe" agent --config "C:\Users\Al Ice\svc-ctl.toml"`
	if got != want {
		t.Errorf("CommandLine = %s\nwant          %s", got, want)
	}
}
