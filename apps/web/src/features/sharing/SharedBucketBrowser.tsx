import { useState } from 'react';
import { BucketBrowser, type BrowserFile, type BucketBrowserProps } from '../browser/BucketBrowser.tsx';
import { ShareDialog } from './ShareDialog.tsx';

/** The bucket browser with its Share action opening the share dialog: the one pairing every page uses. */
export function SharedBucketBrowser(props: Omit<BucketBrowserProps, 'onShare'>) {
  const [sharing, setSharing] = useState<BrowserFile[] | null>(null);
  return (
    <>
      <BucketBrowser {...props} onShare={setSharing} />
      <ShareDialog open={sharing !== null} files={sharing ?? []} onClose={() => setSharing(null)} />
    </>
  );
}
