"""The facts check: a memory shaped like the product's (both speakers' turns, kept facts with
keys and their superseded versions) and questions worded unlike the stored text; how often
recall puts the current kept fact first (:mod:`benchmarks.facts_check.check`)."""
