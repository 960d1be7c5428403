/**
 * `markdown` with the text between two marker lines replaced by `content`: how a generated table
 * sits in a page of docs/ (docs:config, docs:launch-path), the markers staying for the next run.
 */
export function withSection(markdown: string, begin: string, end: string, content: string): string {
  const from = markdown.indexOf(begin);
  const to = markdown.indexOf(end);
  if (from === -1 || to < from) throw new Error(`a generated section needs the markers ${begin} and ${end}`);
  return `${markdown.slice(0, from + begin.length)}\n${content}\n${markdown.slice(to)}`;
}
