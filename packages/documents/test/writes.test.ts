import { required, withoutEmpty } from '../src';

describe('withoutEmpty', () => {
  it('drops undefined and empty-string fields, keeping every other value', () => {
    const at = new Date(0);
    expect(
      withoutEmpty({ a: 'x', b: '', c: undefined, d: 0, e: false, f: null, g: [], at }),
    ).toEqual({ a: 'x', d: 0, e: false, f: null, g: [], at });
  });
});

describe('required', () => {
  it('declares a required field of the type', () => {
    expect(required(String)).toEqual({ type: String, required: true });
  });
});
