// RecordDisplay: how records appear where a job's operators show them (exception history, CEP partial matches).

/** How the exception history and the CEP partial-match view show records. */
export interface RecordDisplay {
  /** Show records at all (default true). */
  readonly showRecords: boolean;
  /** Characters of a record shown before it is cut (default 200). */
  readonly maxRecordLength: number;
}

/** The defaults: records shown, cut after 200 characters. */
export const DEFAULT_RECORD_DISPLAY: RecordDisplay = { showRecords: true, maxRecordLength: 200 };

/**
 * A record's text as `display` allows: `'<record hidden>'` when records are off, else cut after
 * `maxRecordLength` characters with the full length noted, e.g. `{"id":"a","pay…  (1204 characters)`.
 */
export function displayRecord(text: string, display: RecordDisplay): string {
  if (!display.showRecords) return '<record hidden>';
  return text.length > display.maxRecordLength
    ? `${text.slice(0, display.maxRecordLength)}… (${text.length} characters)`
    : text;
}
