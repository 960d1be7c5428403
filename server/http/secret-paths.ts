/**
 * Whether a request path is one whose body may hold a secret: the secrets routes and every near
 * miss of them, that is any path that names `secret` in any case, percent-encoded (once or more)
 * or not. A client that gets the path wrong still sent its value; the journal and the request log
 * treat the request as a put all the same.
 */
export function touchesSecrets(path: string): boolean {
  let decoded = path;
  // Each pass shortens the text, so this ends; undecodable escapes are left as they are.
  for (let previous = ''; decoded !== previous && decoded.includes('%');) {
    previous = decoded;
    decoded = decoded.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }
  return /secret/i.test(decoded);
}
