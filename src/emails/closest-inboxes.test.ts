import { describe, expect, it } from 'vitest';
import { closestInboxes } from './closest-inboxes.js';

const GENERATED = ['john.arnold@enron.example', 'jane.arnold@enron.example', 'kim.doe@enron.example'];

describe('closestInboxes', () => {
  it('suggests the inbox a typo came from', () => {
    expect(closestInboxes('jhon.arnold@enron.example', GENERATED)).toEqual(['john.arnold@enron.example']);
    expect(closestInboxes('john.arnold@enron.com', GENERATED)).toEqual(['john.arnold@enron.example']);
  });

  it('compares whole names, not the part after the last dot', () => {
    // Every candidate ends in ".example": that alone makes none of them close.
    expect(closestInboxes('nobody@elsewhere.example', GENERATED)).toEqual([]);
    expect(closestInboxes('x.y_z', ['x.y-z', 'a__b.y_z'])).toEqual(['x.y-z']);
  });

  it('keeps only the closest of the names of one domain', () => {
    expect(closestInboxes('alcie@enron.com', ['alice@enron.com', 'bob@enron.com', 'carol@enron.com'])).toEqual([
      'alice@enron.com',
    ]);
  });

  it('ignores case and points a part of a name to the names that hold it', () => {
    expect(closestInboxes('KIM.DOE@ENRON.EXAMPLE', GENERATED)).toEqual(['kim.doe@enron.example']);
    expect(closestInboxes('arnold-j', ['arnold-j', 'allen-p'])).toEqual(['arnold-j']);
    expect(closestInboxes('allen', ['arnold-j', 'allen-p'])).toEqual(['allen-p']);
  });

  it('finds nothing for names unlike any, and for no candidates', () => {
    expect(closestInboxes('"; drop table emails; --', GENERATED)).toEqual([]);
    expect(closestInboxes('x', [])).toEqual([]);
  });
});
