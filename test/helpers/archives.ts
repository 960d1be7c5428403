/**
 * Archives built byte by byte, so the tests control every header the server's checks read
 * (links, devices, paths) without a tar or zip tool on the machine.
 */

export interface TarMember {
  path: string;
  /** tar type flag: 0 file (default), 5 directory, 1 hard link, 2 symlink, 3 char device, 6 FIFO */
  type?: '0' | '1' | '2' | '3' | '5' | '6';
  content?: string;
  link?: string;
}

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

function header(name: string, type: string, size: number, link = ''): Buffer {
  const block = Buffer.alloc(512);
  block.write(name, 0, 100, 'utf8');
  block.write(octal(0o644, 8), 100, 'latin1');
  block.write(octal(0, 8), 108, 'latin1');
  block.write(octal(0, 8), 116, 'latin1');
  block.write(octal(size, 12), 124, 'latin1');
  block.write(octal(0, 12), 136, 'latin1');
  block.write(' '.repeat(8), 148, 'latin1');
  block.write(type, 156, 'latin1');
  block.write(link, 157, 100, 'utf8');
  block.write('ustar\x0000', 257, 'latin1');
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
  return block;
}

const pad = (data: Buffer) => Buffer.concat([data, Buffer.alloc((512 - (data.length % 512)) % 512)]);

/** A ustar archive; a path longer than 100 bytes goes into a pax header, as GNU and bsdtar write it. */
export function tarOf(members: TarMember[]): Buffer {
  const blocks: Buffer[] = [];
  for (const m of members) {
    const content = Buffer.from(m.content ?? '');
    let name = m.path;
    if (Buffer.byteLength(name) > 100) {
      const body = `path=${name}\n`;
      // The length counts its own digits.
      let length = body.length + 2;
      while (String(length).length + 1 + body.length !== length) length = String(length).length + 1 + body.length;
      const record = `${length} ${body}`;
      blocks.push(header('PaxHeader', 'x', Buffer.byteLength(record)), pad(Buffer.from(record)));
      name = name.slice(0, 100);
    }
    blocks.push(header(name, m.type ?? '0', m.type === undefined || m.type === '0' ? content.length : 0, m.link));
    if (content.length && (m.type ?? '0') === '0') blocks.push(pad(content));
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

export interface ZipMember {
  path: string;
  content?: string;
  /** Unix mode bits recorded in the external attributes; 0o120777 makes a symlink. */
  mode?: number;
}

/** A zip with stored (uncompressed) members and a central directory written by a Unix host. */
export function zipOf(members: ZipMember[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const m of members) {
    const name = Buffer.from(m.path);
    const data = Buffer.from(m.content ?? '');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x800, 6);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, data);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x800, 8);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(((m.mode ?? (m.path.endsWith('/') ? 0o040755 : 0o100644)) << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += 30 + name.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(members.length, 8);
  end.writeUInt16LE(members.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
