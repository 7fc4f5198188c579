import { findRepoRoot } from './source.js';

/** The repository root the site pulls excerpts from (astro runs in apps/docs). */
export const repoRoot: string = process.env['KLOG_REPO_ROOT'] ?? findRepoRoot();
