import examples from './openapi-examples.json' with { type: 'json' };

/**
 * One recorded call of an operation: its path and query values, its JSON body and the answer.
 * `tests/src/openapi/examples.test.ts` records them from real calls (UPDATE_OPENAPI_EXAMPLES=1
 * writes openapi-examples.json), and the document lint fails when one no longer fits its schema.
 */
export type RecordedExample = {
  parameters?: Record<string, unknown>;
  request?: unknown;
  status: number;
  response?: unknown;
};

/** Recorded calls by surface, then by `<METHOD> <path>` as the document names the operation. */
export type RecordedExamples = Record<string, Record<string, RecordedExample>>;

export const RECORDED_EXAMPLES = examples as RecordedExamples;

type Media = { example?: unknown };
type Operation = {
  parameters?: { name: string; example?: unknown }[];
  requestBody?: { content?: Record<string, Media> };
  responses?: Record<string, { content?: Record<string, Media> }>;
};

/** Puts the recorded call into the operation: parameter values, the request and response bodies. */
export function addExample(operation: Operation, example: RecordedExample | undefined): void {
  if (!example) return;
  for (const parameter of operation.parameters ?? []) {
    const value = example.parameters?.[parameter.name];
    if (value !== undefined) parameter.example = value;
  }
  const request = operation.requestBody?.content?.['application/json'];
  if (request && example.request !== undefined) request.example = example.request;
  const response = operation.responses?.[String(example.status)]?.content?.['application/json'];
  if (response && example.response !== undefined) response.example = example.response;
}
