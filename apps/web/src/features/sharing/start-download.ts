/**
 * Hands a signed URL to the browser. The store answers with Content-Disposition: attachment, so the browser saves
 * the file and stays on the page. A seam of its own because jsdom cannot navigate.
 */
export function startDownload(url: string): void {
  window.location.assign(url);
}
