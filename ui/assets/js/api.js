// The JSON API of the svc-ctl process that served the page.
//
// The API's token comes in the URL's fragment (#token=..., never sent to a
// server); this module moves it into sessionStorage (this origin's, port
// included: no other page on 127.0.0.1 can read it), takes it out of the
// address bar and sends it as an Authorization header. No cookie: a browser
// would send one to every server on 127.0.0.1. The page and its modules are
// served without the token; every /api/ path needs it.

const TOKEN_KEY = 'svcctl-token';
let keptToken = ''; // where sessionStorage is turned off: this page's life only
(() => {
  const m = /(?:^#|&)token=([A-Za-z0-9_-]+)/.exec(location.hash);
  if (!m) return;
  keptToken = m[1];
  try { sessionStorage.setItem(TOKEN_KEY, m[1]); } catch (e) { /* kept above */ }
  history.replaceState(null, '', location.pathname + location.search);
})();
function token() {
  try { return sessionStorage.getItem(TOKEN_KEY) || keptToken; } catch (e) { return keptToken; }
}
function headers(extra) {
  return Object.assign({ Accept: 'application/json', Authorization: 'Bearer ' + token() }, extra || {});
}

class AuthError extends Error {}
class Unreachable extends Error {}
export async function api(path, opts) {
  let r;
  try {
    r = await fetch(path, Object.assign({ cache: 'no-store', headers: headers() }, opts || {}));
  } catch (e) {
    throw new Unreachable('svc-ctl ui is not answering (' + e.message + '): is it still running?');
  }
  if (r.status === 401) throw new AuthError('this page is no longer signed in: open the URL `svc-ctl ui` printed');
  let body = null;
  try { body = await r.json(); } catch (e) { body = null; }
  if (!r.ok) throw new Error((body && body.error) || r.status + ' ' + r.statusText);
  return body;
}
export function act(action, body) {
  return api('/api/actions/' + action, {
    method: 'POST',
    headers: headers({ 'Content-Type': 'application/json' }),
    body: JSON.stringify(body),
  });
}
