// The JSON API of the svc-ctl process that served the page.

class AuthError extends Error {}
class Unreachable extends Error {}
export async function api(path, opts) {
  let r;
  try {
    r = await fetch(path, Object.assign({ cache: 'no-store', headers: { Accept: 'application/json' } }, opts || {}));
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
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify(body),
  });
}
