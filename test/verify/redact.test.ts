import t from '../helpers/tap.js';
import { redact } from '../../server/verify/redact.js';

const KEY = 'Nk_Live/Hostile~Key "Q" 42+Z';
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const everyByte = (s: string) => [...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
const pointer = (s: string) => s.replaceAll('~', '~0').replaceAll('/', '~1');

t.test('each spelling of the key, inside other text, becomes the marker', async (t) => {
  const spellings: [string, string][] = [
    ['verbatim', KEY],
    ['lower case', KEY.toLowerCase()],
    ['upper case', KEY.toUpperCase()],
    ['JSON pointer', pointer(KEY)],
    ['a pointer of an escaped name', pointer(pointer(KEY))],
    ['URL-encoded', encodeURIComponent(KEY)],
    ['every byte percent-encoded, lower hex', everyByte(KEY)],
    ['every byte percent-encoded, upper hex', everyByte(KEY).toUpperCase()],
    ['percent-encoded twice', encodeURIComponent(encodeURIComponent(KEY))],
    ['form-encoded', new URLSearchParams({ k: KEY }).toString().slice(2)],
    ['a URL-encoded pointer', encodeURIComponent(pointer(KEY))],
    ['JSON string', JSON.stringify(KEY).slice(1, -1)],
    ['JSON-string escaped twice', JSON.stringify(JSON.stringify(KEY).slice(1, -1)).slice(1, -1)],
    ['base64 of key:', b64(`${KEY}:`)],
    ['base64 of the key', b64(KEY)],
    ['base64url of the key', Buffer.from(KEY).toString('base64url')],
    ['mixed', `${KEY.slice(0, 7).toLowerCase()}~1${encodeURIComponent(KEY.slice(8))}`],
  ];
  for (const [name, form] of spellings) t.equal(redact(`before ${form} after`, [KEY]), 'before [redacted] after', name);
});

t.test('the key inside a longer base64 text leaves nothing of itself, at any alignment', async (t) => {
  for (const user of ['', 'a', 'ab', 'abc:']) {
    const encoded = b64(`${user}${KEY}:password`);
    const left = redact(encoded, [KEY]).split('[redacted]');
    t.equal(left.length, 2, `after ${JSON.stringify(user)}`);
    // What is left spells only the text around the key, the one character it shares on each side
    // and the padding.
    t.ok(left.join('').length <= Math.ceil(((user.length + ':password'.length) * 4) / 3) + 4, `${left.join(' [redacted] ')}`);
  }
});

t.test('other text stays; every secret goes, the longer first', async (t) => {
  t.equal(redact('status 200 at /v1/me', [KEY]), 'status 200 at /v1/me');
  t.equal(redact('tok-abcdefgh1 and tok-abcdefgh', ['tok-abcdefgh', 'tok-abcdefgh1']), '[redacted] and [redacted]');
  t.equal(redact('nothing to hide', ['']), 'nothing to hide', 'an empty secret matches nothing');
});
