"""What a paper is to its readers: a problem's items, answers, the problem text as safe HTML
(`markdown`), the paper and its scanned pages (`selectors`, `scan_pages`, `images`), and the pages
that show one paper."""
