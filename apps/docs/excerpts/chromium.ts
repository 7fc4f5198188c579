// The browser the site's build (diagrams) and its browser test use: Debian's `chromium`.
// `npx playwright install` cannot download browsers here; `pnpm test` installs this one with apt
// (scripts/test-machine.mjs).
import { requireTool } from '../../../scripts/test-machine.mjs';

export const chromiumPath = process.env['KLOG_CHROMIUM'] ?? '/usr/bin/chromium';

/** Chromium is missing: fail, saying what to install, unless the user opted out (KLOG_SKIP=chromium). */
export function missingChromium(what: string): void {
  requireTool('chromium', false, `${chromiumPath} not found, so ${what}`);
}
