// Package contrib carries what a binary-only user has no copy of: the
// commented example config, which `svc-ctl init --example` writes. The file
// itself stays where people look for it (contrib/svc-ctl.example.toml).
package contrib

import _ "embed"

// ExampleConfig is contrib/svc-ctl.example.toml: every key, commented.
//
//go:embed svc-ctl.example.toml
var ExampleConfig string
