/**
 * What the official MCP conformance CLI (@modelcontextprotocol/conformance 0.2.0-alpha.12,
 * `--requirements <revision>`) reports against POST /mcp, scenario by scenario: the checks that do
 * not pass (FAILURE, WARNING or ERROR; INFO and SKIPPED pass). The tests compare the whole report
 * with these tables, so a scenario that stops passing, or one more failing check, fails them; the
 * reasons are in docs/api.md ("Conformance").
 */
export type Standing = Record<string, string[]>;

const passing = (names: string[]): Standing => Object.fromEntries(names.map((name) => [name, []]));
/** Scenarios with one check, named as the scenario, that fails. */
const failingAlone = (names: string[]): Standing => Object.fromEntries(names.map((name) => [name, [name]]));

/**
 * Beckon's agent tools (service.*): the scenarios that call the suite's own fixtures (`test_*`
 * tools, `test://` resources, prompts, completions, logging, the task fixtures `slow_compute`, …)
 * fail with "unknown tool" or "Method not found", as they must on a server that does not offer
 * them; the fixtures run on the same handling in mcp-conformance-fixtures.test.ts, where every
 * scenario passes.
 */
export const AGENT_STANDING: Record<'2025-11-25' | '2026-07-28', Standing> = {
  '2025-11-25': {
    ...passing([
      'dns-rebinding-protection',
      'ping',
      'server-initialize',
      'server-session-lifecycle',
      'tools-list',
    ]),
    ...failingAlone([
      'completion-complete',
      'logging-set-level',
      ...['embedded-resource', 'simple', 'with-args', 'with-image'].map((name) => `prompts-get-${name}`),
      'prompts-list',
      'resources-list',
      ...['read-binary', 'read-text', 'subscribe', 'templates-read', 'unsubscribe'].map(
        (name) => `resources-${name}`,
      ),
      ...[
        'audio',
        'elicitation',
        'embedded-resource',
        'error',
        'image',
        'mixed-content',
        'sampling',
        'simple-text',
        'with-logging',
        'with-progress',
      ].map((name) => `tools-call-${name}`),
    ]),
    'elicitation-sep1034-defaults': ['elicitation-sep1034-general'],
    'elicitation-sep1330-enums': ['elicitation-sep1330-general'],
    'json-schema-2020-12': ['json-schema-2020-12-tool-found'],
    // Beckon's agent tools keep no session at the 2025 revisions (a session id only for Apps):
    // the suite warns that it found none to test these streams with.
    'server-sse-multiple-streams': ['server-sse-multiple-streams-session'],
    'server-sse-polling': ['server-sse-polling-session'],
  },
  '2026-07-28': {
    ...passing([
      'caching',
      'dns-rebinding-protection',
      'http-header-validation',
      'input-required-result-unsupported-methods',
      'input-required-result-validate-input',
      'prompts-list',
      'resources-list',
      'sep-2164-resource-not-found',
      'server-sse-multiple-streams',
      'tasks-status-notifications',
      'tools-list',
    ]),
    ...failingAlone([
      'completion-complete',
      ...['embedded-resource', 'simple', 'with-args', 'with-image'].map((name) => `prompts-get-${name}`),
      ...['read-binary', 'read-text', 'templates-read'].map((name) => `resources-${name}`),
      ...[
        'audio',
        'embedded-resource',
        'error',
        'image',
        'mixed-content',
        'simple-text',
        'with-progress',
      ].map((name) => `tools-call-${name}`),
    ]),
    'http-custom-header-server-validation': [
      'sep-2243-server-no-xmcp-tool',
      'sep-2243-server-decode-base64',
      'sep-2243-server-validate-param-match',
      'sep-2243-server-reject-invalid-param-chars',
      'sep-2243-server-reject-param-mismatch',
    ],
    'input-required-result-basic-elicitation': ['sep-2322-elicitation-incomplete'],
    'input-required-result-basic-list-roots': ['sep-2322-list-roots-incomplete'],
    'input-required-result-basic-sampling': ['sep-2322-sampling-incomplete'],
    'input-required-result-capability-check': ['sep-2322-respect-client-capabilities'],
    'input-required-result-ignore-extra-params': ['sep-2322-ignore-unexpected-params'],
    'input-required-result-missing-input-response': ['sep-2322-missing-response-rerequests'],
    'input-required-result-multi-round': ['sep-2322-multi-round-r1'],
    'input-required-result-multiple-input-requests': ['sep-2322-multiple-inputs-incomplete'],
    'input-required-result-non-tool-request': ['sep-2322-non-tool-incomplete'],
    'input-required-result-request-state': ['sep-2322-request-state-incomplete'],
    'input-required-result-result-type': ['sep-2322-result-type-included'],
    'input-required-result-tampered-state': ['sep-2322-reject-tampered-state'],
    'json-schema-2020-12': ['json-schema-2020-12-tool-found'],
    // Probes with the diagnostic fixtures test_missing_capability and test_streaming_elicitation.
    'server-stateless': [
      'sep-2575-server-rejects-undeclared-capability',
      'sep-2575-missing-capability-http-400',
      'sep-2575-http-server-no-independent-requests-on-stream',
      'sep-2575-server-no-log-without-loglevel',
    ],
    'tasks-capability-negotiation': [
      'sep-2663-server-rejects-undeclared-client',
      'tasks-per-request-meta-opt-in',
    ],
    'tasks-dispatch-and-envelope': [
      'tasks-server-directed-creation-no-hint',
      'sep-2663-legacy-task-param-ignored',
      'tasks-immediate-result-shortcut',
      'tasks-result-type-complete-on-non-task-responses',
      'sep-2663-durable-create-strong-consistency',
    ],
    'tasks-lifecycle': [
      'tasks-sync-tool-call',
      'sep-2663-result-type-task-on-create',
      'sep-2663-tasks-get-status-working',
      'sep-2663-tasks-get-status-completed',
      'sep-2663-tool-error-uses-completed-status',
      'sep-2663-tasks-get-status-failed',
      'sep-2663-cancel-ack-empty-result',
      'tasks-cancel-terminal-idempotent-ack',
    ],
    'tasks-mrtr-composition': ['sep-2663-mrtr-synchronous-before-task-creation'],
    'tasks-mrtr-input': [
      'sep-2663-tasks-get-status-input-required',
      'tasks-mrtr-tasks-update-resumes',
      'tasks-mrtr-partial-fulfillment',
    ],
    'tasks-request-headers': [
      'tasks-headers-tolerate-mcp-method-on-tools-call',
      'sep-2663-routing-headers-accepted-on-tasks-get',
      'sep-2663-server-rejects-mismatched-mcp-name-on-tasks-get',
    ],
    'tasks-request-state-removal': ['tasks-request-state-removal-setup'],
    'tasks-required-task-error': ['sep-2663-server-returns-missing-capability-when-required'],
    'tasks-wire-fields': [
      'tasks-wire-field-renames',
      'tasks-no-early-ttl-expiry',
      'tasks-no-related-task-meta-on-inlined-result',
    ],
  },
};

/** The suite's fixtures on Beckon's handling: every scenario of both requirement sets passes. */
export const FIXTURES_STANDING: Record<'2025-11-25' | '2026-07-28', Standing> = {
  '2025-11-25': passing(Object.keys(AGENT_STANDING['2025-11-25'])),
  '2026-07-28': passing(Object.keys(AGENT_STANDING['2026-07-28'])),
};
