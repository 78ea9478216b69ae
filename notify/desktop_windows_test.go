package notify

import (
	"encoding/xml"
	"testing"
)

// TestToastXML: the title and text are escaped, never spliced: a message
// with markup in it stays text.
func TestToastXML(t *testing.T) {
	s := toastXML(`proxy <down> & "out"`, "</text><image src='x'/>", true)
	var doc struct {
		Duration string   `xml:"duration,attr"`
		Texts    []string `xml:"visual>binding>text"`
	}
	if err := xml.Unmarshal([]byte(s), &doc); err != nil {
		t.Fatalf("not XML: %v\n%s", err, s)
	}
	if doc.Duration != "long" || len(doc.Texts) != 2 || doc.Texts[0] != `proxy <down> & "out"` ||
		doc.Texts[1] != "</text><image src='x'/>" {
		t.Errorf("toast = %+v\n%s", doc, s)
	}
}
