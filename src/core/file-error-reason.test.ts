import { describe, expect, it } from 'vitest';
import { fileErrorReason } from './file-error-reason.js';

const systemError = (code: string) => Object.assign(new Error(`${code}: something`), { code });

describe('fileErrorReason', () => {
  it.each([
    ['EISDIR', 'write', 'is a folder, not a file'],
    ['EACCES', 'write', 'cannot be written: permission denied'],
    ['EACCES', 'read', 'cannot be read: permission denied'],
    ['ENOENT', 'read', 'does not exist'],
    ['ENOENT', 'write', 'cannot be written: its folder does not exist'],
    ['ENOTDIR', 'write', 'cannot be written: a part of its path is a file, not a folder'],
    ['EROFS', 'write', 'cannot be written: the file system is read-only'],
    ['EMFILE', 'read', 'cannot be read: EMFILE: something'],
  ] as const)('words %s on %s as %j', (code, access, reason) => {
    expect(fileErrorReason(systemError(code), access)).toBe(reason);
  });

  it('answers undefined for an error that is not a file system error', () => {
    expect(fileErrorReason(new Error('boom'), 'read')).toBeUndefined();
    expect(fileErrorReason(Object.assign(new Error('x'), { code: 'ERR_INVALID_ARG_TYPE' }), 'read')).toBeUndefined();
    expect(fileErrorReason('EISDIR', 'read')).toBeUndefined();
  });
});
