const STYLE_ID = 'jsdom-antd-button-vars';

/**
 * Test-only, for jsdom. antd's Button declares `--ant-button-only-icon-size(-sm|-lg): inherit`. jsdom 29 resolves
 * an inherited custom property that no ancestor defines by asking every ancestor, and each of them asks all of its
 * own ancestors again: 2^depth steps. For a button 24 elements deep (an account row of the dashboard table) one
 * getComputedStyle call, which every getByRole makes, runs for hours. Giving the three properties a value on the
 * root ends each walk there. It changes nothing a test asserts (tests run without antd's runtime styles anyway);
 * src/test/setup.ts applies it before every test.
 */
export function defineAntdButtonVarsForJsdom(): void {
  if (document.getElementById(STYLE_ID)) return;
  const style = document.createElement('style');
  style.id = STYLE_ID;
  style.textContent =
    ':root { --ant-button-only-icon-size: 1em; --ant-button-only-icon-size-sm: 1em; --ant-button-only-icon-size-lg: 1em; }';
  document.head.append(style);
}
