package marker

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestLineRoundTrip(t *testing.T) {
	in := []Marker{
		{Boot: 1, Step: "install", Scenario: "main", AtMS: 1700000000123, OK: true, RC: 0,
			Output: "installed\nstarted\r\n\x1b[0m"},
		{Boot: 2, Step: "verify", Scenario: "main", AtMS: 1700000099000, OK: false, RC: 1,
			Data: json.RawMessage(`{"checks":[{"name":"started-since-boot","status":"FAIL","evidence":"x"}]}`)},
	}
	var log strings.Builder
	log.WriteString("[   12.3] systemd[1]: Started drill.service\n")
	for _, m := range in {
		l, err := m.Line()
		if err != nil {
			t.Fatal(err)
		}
		if strings.ContainsAny(l, "\r\n") {
			t.Fatalf("marker line breaks: %q", l)
		}
		// serial ports add a carriage return; kernel noise may precede a line
		log.WriteString("\x00" + l + "\r\n")
	}
	got, err := Parse(strings.NewReader(log.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(in) {
		t.Fatalf("parsed %d markers, want %d", len(got), len(in))
	}
	for i := range in {
		if got[i].Step != in[i].Step || got[i].Boot != in[i].Boot || got[i].Output != in[i].Output ||
			got[i].AtMS != in[i].AtMS || got[i].OK != in[i].OK || got[i].RC != in[i].RC ||
			string(got[i].Data) != string(in[i].Data) {
			t.Errorf("marker %d: got %+v, want %+v", i, got[i], in[i])
		}
	}
}

func TestParseTornMarker(t *testing.T) {
	_, err := Parse(strings.NewReader(`DRILL boot=1 step=verify ok=true {"boot":1,"step":"ver` + "\n"))
	if err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Fatalf("torn marker: err = %v, want an error naming line 1", err)
	}
}
