package ui

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"html"
	"os"
	"sync"

	"svcctl/internal/fsutil"
)

// RedirectDir is the directory, in the home of the person who runs `svc-ctl
// ui --open`, that holds the redirect file: not hidden, so that a
// sandboxed browser (snap, Flatpak), which may read the home's visible
// files only, can open it.
const RedirectDir = "svc-ctl-ui"

// OpenPage opens the page at url (its token in the fragment) in the
// desktop's browser without putting the token in any process's argv: the
// opener is handed a redirect file instead, 0600 and owned by the person
// (under sudo, the user sudo names: the browser must not run as root, and
// it runs as them), in RedirectDir under their home, which sends the
// browser on to url. done deletes the file: call it once the page has
// used the token (Options.TokenUsed), and at exit.
func OpenPage(url string) (path string, done func(), err error) {
	who, err := currentInvoker()
	if err != nil {
		return "", nil, err
	}
	f, err := writeRedirect(who, url)
	if err != nil {
		return "", nil, fmt.Errorf("write the page's redirect file: %w", err)
	}
	var once sync.Once
	done = func() { once.Do(func() { f.dir.Remove(f.name); f.dir.Close() }) }
	if err := openAs(f.dir.Join(f.name), who); err != nil {
		done()
		return "", nil, err
	}
	return f.dir.Join(f.name), done, nil
}

// redirect is a redirect file in its pinned directory.
type redirect struct {
	dir  *fsutil.Dir
	name string
}

// writeRedirect writes the redirect file as who, without following a link
// another user could plant: the person's home is pinned (no link on its
// path, but administrators' resolved), RedirectDir is made in it or must be
// theirs already, and the file is created new (O_EXCL) through that handle.
func writeRedirect(who *invoker, url string) (*redirect, error) {
	home, err := fsutil.OpenDir(fsutil.Canonical(who.home))
	if err != nil {
		return nil, err
	}
	defer home.Close()
	if err := home.Mkdir(RedirectDir, 0o700); err == nil {
		if err := who.own(home, RedirectDir); err != nil {
			return nil, err
		}
	} else if !os.IsExist(err) {
		return nil, err
	}
	dir, err := home.Sub(RedirectDir)
	if err != nil {
		return nil, err
	}
	if err := who.mine(dir); err != nil {
		dir.Close()
		return nil, err
	}
	b := make([]byte, 8)
	rand.Read(b)
	name := "open-" + hex.EncodeToString(b) + ".html"
	f, err := dir.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600, nil)
	if err != nil {
		dir.Close()
		return nil, err
	}
	_, err = f.WriteString(redirectPage(url))
	if err == nil {
		err = who.ownFile(f)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		dir.Remove(name)
		dir.Close()
		return nil, err
	}
	return &redirect{dir: dir, name: name}, nil
}

// redirectPage is the file's HTML: a refresh to url, and a link for a
// browser that does not follow one. No script: it is a file, not the page.
func redirectPage(url string) string {
	u := html.EscapeString(url)
	return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="referrer" content="no-referrer">
<meta http-equiv="refresh" content="0;url=` + u + `">
<title>svc-ctl</title></head>
<body><p><a href="` + u + `">Open the svc-ctl status page</a></p>
<p>This file is deleted as soon as the page is open.</p></body></html>
`
}
