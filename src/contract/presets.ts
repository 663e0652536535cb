import type { AccountSchemas } from './account-types.js';
import { compileSpecSchema, createSpecAjv, describeErrors } from './schemas.js';
import { deref, loadContractSpec, type OpenApiDocument } from './spec.js';

/** The values of an integer enum of the account API a user picks from, and the default among them. */
export interface Presets<Value extends number> {
  values: Value[];
  default: Value;
}

/**
 * What the account API lets a user choose for a key: its expiry in days (`ExpiresInDays`), the overlap of a roll in
 * hours (`OverlapHours`), and the length of its name (`KeyName`).
 */
export interface AccountPresets {
  expiresInDays: Presets<AccountSchemas['ExpiresInDays']>;
  overlapHours: Presets<AccountSchemas['OverlapHours']>;
  keyName: { minLength: number; maxLength: number };
}

/**
 * The presets as the account spec has them, read at run time as the server reads its schemas, so the pages'
 * selects and `npm run keys -- create --expires-in-days` offer what the API takes, written nowhere else.
 */
export function accountPresets(spec: OpenApiDocument = loadContractSpec('account')): AccountPresets {
  const keyName = deref(spec, { $ref: '#/components/schemas/KeyName' });
  const [minLength, maxLength] = [keyName['minLength'], keyName['maxLength']];
  if (typeof minLength !== 'number' || typeof maxLength !== 'number')
    throw new Error("the account spec's KeyName has no minLength and maxLength; update src/contract/presets.ts");
  return { expiresInDays: presetsOf(spec, 'ExpiresInDays'), overlapHours: presetsOf(spec, 'OverlapHours'), keyName: { minLength, maxLength } };
}

function presetsOf<Value extends number>(spec: OpenApiDocument, name: string): Presets<Value> {
  const schema = deref(spec, { $ref: `#/components/schemas/${name}` });
  const values = schema['enum'];
  const fallback = schema['default'];
  if (!Array.isArray(values) || !values.every((value) => typeof value === 'number') || typeof fallback !== 'number' || !values.includes(fallback))
    throw new Error(`the account spec's ${name} is not an enum of numbers with a default among them; update src/contract/presets.ts`);
  return { values: values as Value[], default: fallback as Value };
}

/**
 * A check of a value against one of the account spec's component schemas (`UserName`), for a program that writes
 * to the store with no API between (`npm run keys`): what it stores, the API lists back and must be able to take.
 * Gives undefined when the value fits, else what is wrong and the schema's description.
 */
export function accountSchemaCheck(name: string, spec: OpenApiDocument = loadContractSpec('account')): (value: unknown) => string | undefined {
  const validate = compileSpecSchema(createSpecAjv(spec), { $ref: `#/components/schemas/${name}` });
  const description = deref(spec, { $ref: `#/components/schemas/${name}` })['description'];
  return (value) => {
    if (validate(value)) return undefined;
    const wrong = describeErrors(validate.errors)
      .map((violation) => violation.detail)
      .join('; ');
    return `${wrong} (the account API's ${name}${typeof description === 'string' ? `: ${description}` : ''})`;
  };
}
