import { useEffect } from 'react';

/** Sets the browser tab title to "{title} · Cumulo". */
export function useDocumentTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · Cumulo`;
  }, [title]);
}
