import { describe, expect, it } from 'vitest';
import { isPublicPath } from './public-paths.ts';

describe('public paths', () => {
  it('treats a share link as public but the list of shares as a signed-in page', () => {
    expect(isPublicPath('/sharing/abc123')).toBe(true);
    expect(isPublicPath('/sharing')).toBe(false);
    expect(isPublicPath('/sharing/')).toBe(false);
  });

  it('keeps the sign-in pages public and the rest signed-in', () => {
    expect(isPublicPath('/login')).toBe(true);
    expect(isPublicPath('/resetpassword/token')).toBe(true);
    expect(isPublicPath('/')).toBe(false);
    expect(isPublicPath('/addProvider')).toBe(false);
  });
});
