/** Hands text to the browser as a file download (an object URL on a temporary link with `download`). */
export function saveTextFile(fileName: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.style.display = 'none';
  document.body.append(link);
  link.click();
  link.remove();
  // The click has started the download; revoking on the next tick lets the browser read the blob first.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
