"""Reading stage 3, what a filtered read may skip: filters (DNF terms, statistics
bounds, exact evaluation) and their text form, the one skip/read decision per row
group and page (statistics, bloom filters, dictionaries, page index), and the
filtered reader that acts on it."""
