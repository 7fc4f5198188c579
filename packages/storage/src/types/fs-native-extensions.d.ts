// The part of fs-native-extensions (holepunchto, Apache-2.0) that klog uses; the package ships no types.
declare module 'fs-native-extensions' {
  /** An exclusive (or shared) lock on `fd`: an open-file-description lock (F_OFD_SETLK) on Linux. False if held elsewhere. */
  export function tryLock(fd: number, opts?: { shared?: boolean }): boolean;
  export function tryLock(fd: number, offset?: number, length?: number, opts?: { shared?: boolean }): boolean;
  export function unlock(fd: number, offset?: number, length?: number): void;
  const fsx: { tryLock: typeof tryLock; unlock: typeof unlock };
  export default fsx;
}
