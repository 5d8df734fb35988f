// Ends jest's output with the plain line `N passed, N failed` (`, N skipped` when any), the
// closing line CI tooling reads whatever the runner. Written at exit so it comes after jest's
// own summary.
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const line = `${results.numPassedTests} passed, ${results.numFailedTests} failed`;
    const text = `\n${skipped > 0 ? `${line}, ${skipped} skipped` : line}\n`;
    process.once('exit', () => process.stderr.write(text));
  }
}
module.exports = SummaryReporter;
