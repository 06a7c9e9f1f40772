// Placeholder module: this package's work is tracked in its own issue (see README, Status).
export {};
