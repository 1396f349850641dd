package extracteval

import ("context";"io")

func syndication(ctx context.Context, w io.Writer, name string, pages []page) error { return nil }
func docRecall(ctx context.Context, w io.Writer, dir string, maxN, worst int) error { return nil }
