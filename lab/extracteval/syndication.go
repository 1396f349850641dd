package extracteval

import (
	"context"
	"io"
)

func syndication(ctx context.Context, w io.Writer, name string, pages []page) error { return nil }
