/**
 * A streaming RFC 4180 CSV record splitter, written for the report reader because csv-parse ran at 16 × the time
 * `gzip -dc` takes on the same report (bench/cur-read), far over issue 24's 2 ×. It finds fields with the string's
 * native indexOf instead of looking at every character, and hands back records in batches, one per text chunk.
 * Quoted fields may hold commas, doubled quotes and line breaks; CRLF and LF line ends are both read.
 */

const QUOTE = 34;
const COMMA = 44;
const LF = 10;
const CR = 13;

/** A record that cannot be split (an unterminated quote, text after a closing quote), with its first line. */
export class CsvSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
  }
}

export interface CsvRecord {
  fields: string[];
  /** The 1-based line the record starts on. */
  line: number;
}

export class CsvRecordSplitter {
  #pending = '';
  #line = 1;
  #first = true;
  /** Which columns are cut out of the text; the others are counted but left as '' (most of a report's 100+). */
  #keep: boolean[] | undefined;

  /** From now on, cut out only these columns' text (the header has been read). */
  keepOnly(columns: ReadonlySet<number>): void {
    this.#keep = [];
    for (const column of columns) if (column >= 0) this.#keep[column] = true;
  }

  /** The complete records of the text so far; an incomplete last record waits for the next chunk. */
  push(chunk: string): CsvRecord[] {
    let text = this.#pending + chunk;
    if (this.#first && text.length > 0) {
      this.#first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    const records: CsvRecord[] = [];
    const consumed = this.#split(text, false, records);
    this.#pending = text.slice(consumed);
    return records;
  }

  /** The last record, at the end of the input. */
  end(): CsvRecord[] {
    const records: CsvRecord[] = [];
    this.#split(this.#pending, true, records);
    this.#pending = '';
    return records;
  }

  #split(text: string, final: boolean, records: CsvRecord[]): number {
    let position = 0;
    const length = text.length;
    while (position < length) {
      const start = position;
      const startLine = this.#line;
      const fields: string[] = [];
      const keep = this.#keep;
      let lineEnd = text.indexOf('\n', position);
      let extraLines = 0;
      let complete = false;
      for (;;) {
        if (text.charCodeAt(position) === QUOTE) {
          let value = '';
          let from = position + 1;
          let closed = -1;
          for (;;) {
            const quote = text.indexOf('"', from);
            if (quote < 0) break;
            if (text.charCodeAt(quote + 1) === QUOTE) {
              value += text.slice(from, quote + 1);
              from = quote + 2;
              continue;
            }
            // A quote at the very end of the chunk may be the first of a doubled pair: wait for more text.
            if (quote + 1 >= length && !final) break;
            value += text.slice(from, quote);
            closed = quote;
            break;
          }
          if (closed < 0) {
            if (final) throw new CsvSyntaxError('a quoted field is not closed', startLine);
            return start;
          }
          for (let at = value.indexOf('\n'); at >= 0; at = value.indexOf('\n', at + 1)) extraLines++;
          fields.push(value);
          position = closed + 1;
          if (lineEnd >= 0 && lineEnd < position) lineEnd = text.indexOf('\n', position);
          const next = text.charCodeAt(position);
          if (next === COMMA) {
            position++;
            continue;
          }
          if (next === LF) {
            position++;
            complete = true;
            break;
          }
          if (next === CR && text.charCodeAt(position + 1) === LF) {
            position += 2;
            complete = true;
            break;
          }
          if (position >= length) {
            if (!final) return start;
            complete = true;
            break;
          }
          throw new CsvSyntaxError('text follows a closing quote', startLine);
        }
        if (lineEnd < 0 && !final) return start;
        const end = lineEnd < 0 ? length : lineEnd;
        const comma = text.indexOf(',', position);
        if (comma >= 0 && comma < end) {
          fields.push(keep === undefined || keep[fields.length] === true ? text.slice(position, comma) : '');
          position = comma + 1;
          continue;
        }
        fields.push(
          keep === undefined || keep[fields.length] === true
            ? text.slice(position, end > position && text.charCodeAt(end - 1) === CR ? end - 1 : end)
            : '',
        );
        position = end + 1;
        complete = true;
        break;
      }
      if (!complete) return start;
      this.#line += 1 + extraLines;
      // A blank line is no record.
      if (fields.length === 1 && fields[0] === '') continue;
      records.push({ fields, line: startLine });
    }
    return Math.min(position, length);
  }
}
