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

/**
 * Takes one record: its fields' texts in `fields[0 … count - 1]` (a column not kept reads as whatever the array
 * held, so only kept columns may be read) and the 1-based line it starts on. The array is the splitter's own and
 * is overwritten by the next record: copy what must outlive the call.
 */
type CsvRecordSink = (fields: readonly string[], count: number, line: number) => void;

export class CsvRecordSplitter {
  #pending = '';
  #line: number;
  #first: boolean;
  /** Which columns are cut out of the text; the others are counted but not cut (most of a report's 100+). */
  #keep: boolean[] | undefined;
  /**
   * One array for every record, not one per line: at millions of lines a report's per-line arrays were a good part
   * of a reading thread's garbage collection (bench/cur-read).
   */
  readonly #fields: string[] = [];

  /**
   * `firstLine`: the physical line the text starts on, for a piece cut from the middle of a file (read-pool.ts);
   * only a file's start (line 1) may begin with a byte order mark.
   */
  constructor(firstLine = 1) {
    this.#line = firstLine;
    this.#first = firstLine === 1;
  }

  /** From now on, cut out only these columns' text (the header has been read). */
  keepOnly(columns: ReadonlySet<number>): void {
    this.#keep = [];
    for (const column of columns) if (column >= 0) this.#keep[column] = true;
  }

  /** Hands `sink` the complete records of the text so far; an incomplete last record waits for the next chunk. */
  push(chunk: string, sink: CsvRecordSink): void {
    let text = this.#pending + chunk;
    if (this.#first && text.length > 0) {
      this.#first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    this.#pending = '';
    const consumed = this.#split(text, false, sink);
    this.#pending = text.slice(consumed);
  }

  /** Hands `sink` the last record, at the end of the input. */
  end(sink: CsvRecordSink): void {
    const text = this.#pending;
    this.#pending = '';
    this.#split(text, true, sink);
  }

  #split(text: string, final: boolean, sink: CsvRecordSink): number {
    let position = 0;
    const length = text.length;
    const fields = this.#fields;
    while (position < length) {
      // Read per record: the header's record sets it (keepOnly) for the records after it in the same chunk.
      const keep = this.#keep;
      const start = position;
      const startLine = this.#line;
      let count = 0;
      let lineEnd = text.indexOf('\n', position);
      let extraLines = 0;
      let complete = false;
      let blank = false;
      for (;;) {
        if (text.charCodeAt(position) === QUOTE) {
          const kept = keep === undefined || keep[count] === true;
          let value = '';
          let from = position + 1;
          let closed = -1;
          for (;;) {
            const quote = text.indexOf('"', from);
            if (quote < 0) break;
            if (text.charCodeAt(quote + 1) === QUOTE) {
              if (kept) value += text.slice(from, quote + 1);
              from = quote + 2;
              continue;
            }
            // A quote at the very end of the chunk may be the first of a doubled pair: wait for more text.
            if (quote + 1 >= length && !final) break;
            if (kept) value += text.slice(from, quote);
            closed = quote;
            break;
          }
          if (closed < 0) {
            if (final) throw new CsvSyntaxError('a quoted field is not closed', startLine);
            return start;
          }
          // Line breaks inside the quotes still count towards the next records' line numbers.
          for (
            let at = text.indexOf('\n', position + 1);
            at >= 0 && at < closed;
            at = text.indexOf('\n', at + 1)
          )
            extraLines++;
          if (kept) fields[count] = value;
          // A line of only `""` is one empty field: blank, as an unquoted empty line, if the line ends here.
          blank = count === 0 && closed === position + 1;
          count++;
          position = closed + 1;
          if (lineEnd >= 0 && lineEnd < position) lineEnd = text.indexOf('\n', position);
          const next = text.charCodeAt(position);
          if (next === COMMA) {
            blank = false;
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
          if (keep === undefined || keep[count] === true) fields[count] = text.slice(position, comma);
          count++;
          position = comma + 1;
          continue;
        }
        const last = end > position && text.charCodeAt(end - 1) === CR ? end - 1 : end;
        if (keep === undefined || keep[count] === true) fields[count] = text.slice(position, last);
        // A blank line is no record.
        blank = count === 0 && last === position;
        count++;
        position = end + 1;
        complete = true;
        break;
      }
      if (!complete) return start;
      this.#line += 1 + extraLines;
      if (!blank) sink(fields, count, startLine);
    }
    return Math.min(position, length);
  }
}
