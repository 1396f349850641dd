package crawler

import (
	"net/url"
	"strings"
	"testing"
)

// docbookPage is the shape of a DocBook chapter page as its XSL writes it
// (Debian's maint-guide, upload.en.html, shortened): a navigation table, a
// chapter of a title page, a table of contents, an introduction and
// div.section blocks whose headings open with an <a id="…"/> anchor, and
// the footnotes.
const docbookPage = `<!DOCTYPE html><html><head><title>Chapter 9. Uploading the package</title></head><body>
<div class="navheader"><table width="100%" summary="Navigation header"><tr><th colspan="3" align="center">Chapter 9. Uploading the package</th></tr>
<tr><td align="left"><a accesskey="p" href="update.en.html"><img src="images/prev.png" alt="Prev"/></a> </td><th width="60%" align="center"> </th>
<td align="right"> <a accesskey="n" href="advanced.en.html"><img src="images/next.png" alt="Next"/></a></td></tr></table><hr/></div>
<div class="chapter"><div class="titlepage"><div><div><h1 class="title"><a id="upload"/>Chapter 9. Uploading the package</h1></div></div></div>
<div class="toc"><p><strong>Table of Contents</strong></p><dl class="toc">
<dt><span class="section"><a href="upload.en.html#upload-debian">9.1. Uploading to the Debian archive</a></span></dt>
<dt><span class="section"><a href="upload.en.html#option-sa">9.2. Including orig.tar.gz for upload</a></span></dt>
<dt><span class="section"><a href="upload.en.html#skipped-uploads">9.3. Skipped uploads</a></span></dt></dl></div>
<p>Now that you have tested your new package thoroughly, you want to release it to a public archive to share it.</p>
<div class="section"><div class="titlepage"><div><div><h2 class="title"><a id="upload-debian"/>9.1. Uploading to the Debian archive</h2></div></div></div>
<p>Once you become an official developer, <a href="#ftn.idm3699" class="footnote" id="idm3699"><sup class="footnote">[82]</sup></a> you can upload the package to the Debian archive. You can do this manually, but it's easier to use the existing automated tools, like dupload(1) or dput(1). We'll describe how it's done with dupload.</p>
<p>First you have to set up dupload's config file. You can either edit the system-wide /etc/dupload.conf file, or have your own ~/.dupload.conf file override the few things you want to change.</p>
<p>You can read the dupload.conf(5) manual page to understand what each of these options means.</p>
<p>The $default_host option determines which of the upload queues will be used by default. anonymous-ftp-master is the primary one, but it's possible that you will want to use another one.</p>
<p>While connected to the Internet, you can upload your package as follows:</p>
<pre class="screen">$ dupload gentoo_0.9.12-1_i386.changes</pre>
<p>dupload checks that the SHA1/SHA256 file checksums match those listed in the .changes file. If they do not match, it will warn you to rebuild it so it can be properly uploaded.</p>
</div>
<div class="section"><div class="titlepage"><div><div><h2 class="title"><a id="option-sa"/>9.2. Including orig.tar.gz for upload</h2></div></div></div>
<p>When you first upload the package to the archive, you need to include the original orig.tar.gz source, too.</p>
<p>For the dpkg-buildpackage command:</p><pre class="screen">$ dpkg-buildpackage -sa</pre>
<p>On the other hand, the -sd option will force the exclusion of the original orig.tar.gz source.</p>
</div>
<div class="section"><div class="titlepage"><div><div><h2 class="title"><a id="skipped-uploads"/>9.3. Skipped uploads</h2></div></div></div>
<p>If you created multiple entries in debian/changelog by skipping uploads, you must create a proper changes file.</p>
<pre class="screen">$ dpkg-buildpackage -v1.2</pre>
</div>
<div class="footnotes"><br/><hr/><div id="ftn.idm3699" class="footnote"><p><a href="#idm3699" class="para"><sup class="para">[82] </sup></a>See Section 1.1, “Social dynamics of Debian”.</p></div></div>
</div>
<div class="navfooter"><hr/><table width="100%" summary="Navigation footer"><tr><td align="left"><a accesskey="p" href="update.en.html">Prev</a></td><td align="center"> </td><td align="right"><a accesskey="n" href="advanced.en.html">Next</a></td></tr></table></div>
</body></html>`

// A DocBook chapter keeps all its sections: the text after an <a id/>
// anchor (which the HTML parser leaves open over the rest of the section)
// is not link text, and the sections after the best-scoring one are its
// kind (div.section) and prose, so they are kept with it.
func TestExtractDocBookSections(t *testing.T) {
	u, _ := url.Parse("http://docs.example/maint-guide/upload.en.html")
	d, err := Extract([]byte(docbookPage), "text/html", true, u)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Once you become an official developer",
		"9.2. Including orig.tar.gz for upload",
		"the -sd option will force the exclusion",
		"9.3. Skipped uploads",
		"by skipping uploads, you must create a proper changes file",
		"$ dpkg-buildpackage -v1.2",
	} {
		if !strings.Contains(d.Text, want) {
			t.Errorf("Text lacks %q:\n%s", want, d.Text)
		}
	}
}

// An <a id> (no href) is an anchor: the text it wraps counts as prose,
// an <a href>'s as link text.
func TestAnchorIsNotLinkText(t *testing.T) {
	u, _ := url.Parse("http://docs.example/p.html")
	d, err := Extract([]byte(`<html><body><div id="a"><h2><a id="x"/>Heading</h2><p>Some prose of a section, long enough to be a paragraph.</p></div>`+
		`<div id="b"><a href="/y">Some link text of a list, long enough to be a paragraph.</a></div></body></html>`), "text/html", true, u)
	if err != nil {
		t.Fatal(err)
	}
	c := d.content
	var a, b *stat
	for n, s := range c.stats {
		if id, _ := attr(n, "id"); id == "a" {
			a = s
		} else if id == "b" {
			b = s
		}
	}
	if a == nil || b == nil {
		t.Fatal("no stats for the two blocks")
	}
	if a.linkChars != 0 || a.chars == 0 {
		t.Errorf("section after <a id/>: %d of %d characters counted as links, want 0", a.linkChars, a.chars)
	}
	if b.linkChars != b.chars || b.chars == 0 {
		t.Errorf("<a href> block: %d of %d characters counted as links, want all", b.linkChars, b.chars)
	}
}
