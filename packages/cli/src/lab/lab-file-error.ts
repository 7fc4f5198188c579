/** A lab file that is missing, does not load, or lacks an export: one line, exit code 2. */
export class LabFileError extends Error {
  override readonly name = 'LabFileError';
}
