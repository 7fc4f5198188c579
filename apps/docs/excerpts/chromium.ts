// The browser the site's build (diagrams) and its browser test use: Debian's `chromium`.
// `npx playwright install` cannot download browsers here, and CI installs this one with apt.
export const chromiumPath = process.env['KLOG_CHROMIUM'] ?? '/usr/bin/chromium';

/** On a developer machine: warn loudly and go on. In CI (CI set): fail. */
export function missingChromium(what: string): void {
  const message = `${chromiumPath} is missing, so ${what}. Install it with: sudo apt-get install -y chromium fonts-thai-tlwg`;
  if (process.env['CI']) throw new Error(`CI: ${message}`);
  const bar = '!'.repeat(78);
  console.warn(`\n${bar}\n!! SKIPPED: ${message}\n${bar}\n`);
}
