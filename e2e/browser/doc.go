// Package browser holds the end-to-end test of the status page (docs/ui.md)
// in a real headless Chromium: an agent supervises a service and a job, the
// service is killed and brought back, `svc-ctl ui` serves the page, and the
// test reads the page as a browser renders it — both names, the restart on
// the timeline with its cause, no console error — and saves screenshots
// under dist/ (wide, and a narrow dark one) for people to look at.
//
// It runs with SVCCTL_E2E_BROWSER=1 (.ci/run installs Debian's chromium and
// sets it); elsewhere it skips with the reason. chromedp drives the browser
// over the DevTools protocol; it is imported by this test only and never
// linked into svc-ctl.
package browser
