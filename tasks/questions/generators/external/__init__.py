"""External generators: questions answered from the persona's documents (emails, journals, reports).

Every answer is computed from the documents the persona had before the question is asked (their
headers, sections and ground-truth `tables`) and from the fact store; evidence is the chunks that
hold what is needed (a fact-carrying chunk cites its fact; a chunk holding a table row, a heading or
an email cites none). Documents are named by title, sender and persona-local date; a name shared by
two documents is ambiguous and its document is skipped.

- attachment_fact_retrieval: "According to <document>, what is <holder>'s <attribute>?" (the value the
  document states, which may since have changed), and the order number or amount of a shop receipt;
- table_reasoning: one cell of a report's table, named by its row and column;
- structural_navigation: the heading of the section stating a fact, the heading of the Nth section,
  the row a revised report changed (version N against N-1), who replied to an email;
- table_aggregation: max/min row, conditional counts and pair sums over a table column;
- email_cross_time_count: emails from (or to) one correspondent in a calendar window, messages in a thread;
- email_localization: the date of the email about an event (or of a receipt), the subject of the
  thread that mentioned a fact.

One module per group: `documents` (attachments, tables, sections) and `emails` (counts and dates of
emails and receipts). Importing the package registers both."""

from tasks.questions.generators.external import documents, emails  # noqa: F401  (register the generators)
